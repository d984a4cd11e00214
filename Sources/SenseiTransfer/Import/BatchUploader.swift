import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SenseiGzip
import SenseiModels
import SenseiClient

/// Sends one batch: line protocol gzip'd to `POST /write`, readings as JSON to
/// `POST /sensors/<code>/data`. A 503 (the server shedding load) or a lost
/// connection is retried with backoff: dedup by (sensor, timestamp) makes a
/// resent batch store nothing twice. A refused line or item is reported and
/// the rest of its batch still stored.
package struct BatchUploader: Sendable {
    let client: APIClient
    /// Retries of one batch answered 503, backing off from 100 ms to 5 s (about 2 minutes in all).
    var maximumRetries = 30
    var compress = true

    /// Thrown when no batch can succeed: the token, or a server gone for good.
    package enum Fatal: Error, CustomStringConvertible {
        case rejected(SyncFailure)
        package var description: String {
            switch self {
            case .rejected(.forbidden): "the token may not write readings (it needs write or admin scope)"
            case .rejected(let failure): failure.message
            }
        }
    }

    func upload(_ batch: ImportBatch) async throws(Fatal) -> BatchOutcome {
        switch batch.payload {
        case .lines(let body, let database): return try await uploadLines(batch, body: body, database: database)
        case .readings(let code, let items): return try await uploadReadings(batch, code: code, items: items)
        }
    }

    private func uploadLines(_ batch: ImportBatch, body: [UInt8], database: String) async throws(Fatal) -> BatchOutcome {
        // Level 1: on line protocol it keeps most of level 6's gain (the text is
        // repetitive) at a fraction of the CPU, which the import shares with the server.
        let compressed = compress ? GzipDeflater.deflate(body, level: 1) : nil
        let query = [URLQueryItem(name: "db", value: database), URLQueryItem(name: "precision", value: "ns")]
        let (status, answer) = try await retrying { () async throws(SyncFailure) in
            try await client.send("POST", "/write", query: query, body: compressed ?? body,
                                  contentType: "text/plain; charset=utf-8", gzip: compressed != nil)
        }
        switch status {
        case 204:
            return BatchOutcome(stored: batch.points)
        case 400:
            // InfluxDB's partial write: each bad line named as `unable to parse '<line>': <why>`.
            let message = Self.errorMessage(answer)
            var outcome = LineRefusals.match(message, in: body, batch: batch)
            outcome.stored = max(0, batch.points - outcome.refusedPoints)
            return outcome
        default:
            throw Fatal.rejected(APIClient.failure(status: status, body: answer))
        }
    }

    private func uploadReadings(_ batch: ImportBatch, code: String,
                                items: [ImportBatch.ReadingItem]) async throws(Fatal) -> BatchOutcome {
        var items = items
        var outcome = BatchOutcome()
        // A batch is all or nothing: a refused item is taken out and the rest sent again.
        while !items.isEmpty {
            let body = ImportBatch.Payload.json(items)
            let (status, answer) = try await retrying { () async throws(SyncFailure) in
                try await client.send("POST", "/sensors/\(code)/data", body: body)
            }
            switch status {
            case 201:
                outcome.stored += items.count
                return outcome
            case 422, 400:
                let message = Self.errorMessage(answer)
                guard let index = Self.itemIndex(in: message), items.indices.contains(index) else {
                    outcome.refused.append(Refusal(file: batch.file, line: items.first?.line,
                                                   reason: "\(items.count) readings of \(code) refused: \(message)"))
                    outcome.refusedPoints += items.count
                    return outcome
                }
                outcome.refused.append(Refusal(file: batch.file, line: items[index].line, reason: message))
                outcome.refusedPoints += 1
                items.remove(at: index)
            default:
                throw Fatal.rejected(APIClient.failure(status: status, body: answer))
            }
        }
        return outcome
    }

    /// Runs `send` until it is answered with anything but 503; a connection
    /// lost or refused is retried a few times too, then fatal.
    private func retrying(_ send: () async throws(SyncFailure) -> (status: Int, body: [UInt8]))
        async throws(Fatal) -> (status: Int, body: [UInt8]) {
        var delay: Duration = .milliseconds(100)
        var attempt = 0
        while true {
            attempt += 1
            do {
                let answer = try await send()
                if answer.status != 503 || attempt > maximumRetries { return answer }
            } catch {
                guard case .unreachable = error, attempt <= 3 else { throw .rejected(error) }
            }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(5))
        }
    }

    static func errorMessage(_ body: [UInt8]) -> String {
        (try? JSONParser.parse(body))?["error"]?.stringValue ?? String(decoding: body.prefix(500), as: UTF8.self)
    }

    /// The `N` of a message naming `data[N]`.
    static func itemIndex(in message: String) -> Int? {
        guard let open = message.range(of: "data["), let close = message[open.upperBound...].firstIndex(of: "]") else {
            return nil
        }
        return Int(message[open.upperBound..<close])
    }
}
