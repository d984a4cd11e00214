import Foundation
import SenseiClient
import SenseiModels

/// What `sensei import` did, for its summary and exit status.
package struct ImportSummary: Sendable {
    var files = 0
    var points = 0
    var sensorsCreated = 0
    var skipped: [String: Int] = [:]
    /// The first refusals, in order (a file of bad lines must not fill memory);
    /// `refusedCount` counts them all.
    var refusals: [Refusal] = []
    var refusedCount = 0
    /// Files that could not be read to their end (missing, truncated gzip, …).
    var fileErrors: [String] = []
    var notes: [String] = []
    var seconds = 0.0

    static let keptRefusals = 100

    /// Whether anything was refused or left unread: the exit status says so.
    package var failed: Bool { refusedCount > 0 || !fileErrors.isEmpty }

    mutating func refuse(_ more: [Refusal]) {
        refusedCount += more.count
        refusals += more.prefix(max(0, Self.keptRefusals - refusals.count))
    }

    /// What was imported, for stdout: the points, the sensors created and
    /// what was skipped on purpose (statistics hours without a value, say).
    package var text: String {
        let rate = seconds > 0 ? Int(Double(points) / seconds) : 0
        var lines = ["Imported \(ImportProgress.count(points)) points from \(files) file\(files == 1 ? "" : "s") in "
                     + String(format: "%.1f", seconds) + " s (\(ImportProgress.count(rate)) points/s); "
                     + "\(sensorsCreated) sensor\(sensorsCreated == 1 ? "" : "s") created."]
        for (reason, count) in skipped.sorted(by: { $0.key < $1.key }) {
            lines.append("Skipped \(ImportProgress.count(count)) \(reason).")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Warnings and errors, for stderr (a script reads stdout: issue 38):
    /// notes, files not read to their end, refused lines; empty when none.
    package var problems: String {
        var lines = notes.map { "Note: \($0)." }
        for error in fileErrors { lines.append("Error: \(error)") }
        if refusedCount > 0 {
            lines.append("Refused \(ImportProgress.count(refusedCount)) line\(refusedCount == 1 ? "" : "s"):")
            lines += refusals.map { "  \($0.description)" }
            if refusedCount > refusals.count { lines.append("  … and \(refusedCount - refusals.count) more") }
        }
        return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
    }
}

/// Reads each file batch by batch and keeps up to `concurrency` batches in
/// flight: the next batch is read only once one is answered, so memory holds
/// a few batches whatever the files' sizes.
package struct ImportRun {
    var client: APIClient
    var format: ImportFormat?
    var sensor: String?
    var database = "sensei"
    var concurrency = 4
    var compress = true

    package init(client: APIClient, format: ImportFormat? = nil, sensor: String? = nil, database: String = "sensei",
                 concurrency: Int = 4, compress: Bool = true) {
        self.client = client
        self.format = format
        self.sensor = sensor
        self.database = database
        self.concurrency = concurrency
        self.compress = compress
    }

    package func run(_ paths: [String], progress: ImportProgress? = nil) async throws -> ImportSummary {
        let started = ContinuousClock.now
        let sensorsBefore = try await client.sensors().count
        let uploader = BatchUploader(client: client, compress: compress)
        var summary = ImportSummary()
        for path in paths {
            summary.files += 1
            let source: any ImportSource
            do {
                source = try open(path)
            } catch {
                summary.fileErrors.append("\(error)")
                continue
            }
            do {
                try await run(source, uploader: uploader, summary: &summary, progress: progress)
            } catch let error as ImportError {
                summary.fileErrors.append(error.description)
            }
            for (reason, count) in source.skipped { summary.skipped[reason, default: 0] += count }
            summary.notes += source.notes
        }
        progress?.finish()
        summary.sensorsCreated = max(0, try await client.sensors().count - sensorsBefore)
        summary.seconds = ImportProgress.seconds(ContinuousClock.now - started)
        return summary
    }

    private func open(_ path: String) throws -> any ImportSource {
        switch try format ?? ImportFormat.detect(path) {
        case .lineProtocol: return try LineProtocolSource(path: path, database: database)
        case .csv: return try CSVSource(path: path, sensor: sensor)
        case .homeAssistant: return try HomeAssistantSource(path: path, client: client)
        }
    }

    /// One file: batches read, sent `concurrency` at a time, answers folded
    /// into the summary. A file that fails part way (a truncated gzip) keeps
    /// what was sent before, and its error is thrown once those are answered.
    private func run(_ source: any ImportSource, uploader: BatchUploader, summary: inout ImportSummary,
                     progress: ImportProgress?) async throws {
        var readError: (any Error)?
        try await withThrowingTaskGroup(of: BatchOutcome.self) { group in
            var inFlight = 0
            func absorb(_ outcome: BatchOutcome) {
                summary.points += outcome.stored
                summary.refuse(outcome.refused)
                progress?.update(file: source.path, bytesRead: source.bytesRead, size: source.size, points: summary.points)
            }
            while true {
                let batch: ImportBatch?
                do {
                    batch = try await source.nextBatch()
                } catch {
                    readError = error
                    batch = nil
                }
                summary.refuse(source.refusals)
                source.refusals = []
                guard let batch else { break }
                if inFlight >= concurrency, let outcome = try await group.next() {
                    inFlight -= 1
                    absorb(outcome)
                }
                group.addTask { try await uploader.upload(batch) }
                inFlight += 1
            }
            for try await outcome in group { absorb(outcome) }
            progress?.update(file: source.path, bytesRead: source.bytesRead, size: source.size,
                             points: summary.points, force: true)
        }
        if let readError { throw readError }
    }
}
