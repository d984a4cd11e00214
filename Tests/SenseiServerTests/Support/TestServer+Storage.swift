import Dispatch
import GRDB
import SenseiModels
@testable import SenseiServer

/// The server's store for tests of behaviour, on whichever backend the
/// harness runs (`SENSEI_TEST_BACKEND`); `server.store` is SQLite's alone.
extension TestServer {
    var storage: any SenseiStorage { application.storage }

    /// A compaction pass, as the server's compactor runs it.
    func compact(now: Timestamp) throws -> CompactionPass {
        try storage.runCompactionPass(now: now, betweenBatches: { true })
    }

    /// Stores readings through the write path (a fast loader); returns how
    /// many were accepted once they are committed.
    @discardableResult
    func insertReadings(_ readings: [ReadingInput], into reference: SensorReference,
                        createIfMissing: Bool) throws -> Int {
        try storage.insertCommitted(readings, into: reference, createIfMissing: createIfMissing)
    }

    /// The first column of each row of `sql` as text (NULL is nil), asked of
    /// the server's own database: SQL that SQLite and PostgreSQL both speak,
    /// for what no seam of the store tells (an outbox entry's last error).
    func column(_ sql: String) throws -> [String?] {
        if let url = application.configuration.database {
            let result = try PostgresServer.shared.get().psql(sql, database: url.database)
            guard result.status == 0 else { throw PsqlFailed(message: result.error) }
            // -A -t: one unaligned line a row; NULL and '' both print empty.
            return result.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                .map { $0.isEmpty ? nil : String($0) }
        }
        return try store.pool.read { db in
            try DatabaseValue.fetchAll(db, sql: sql).map { value in
                switch value.storage {
                case .null: nil
                case .int64(let int): "\(int)"
                case .double(let double): "\(double)"
                case .string(let string): string
                case .blob(let data): "\(data)"
                }
            }
        }
    }
}

extension ReadingStore {
    /// `ingest`, waiting for the commit.
    @discardableResult
    func ingestCommitted(_ points: [SeriesPoint]) throws -> SeriesIngestOutcome {
        try waitForCompletion { ingest(points, allOrNothing: false, receivedAt: .now(), completion: $0) }
    }

    /// `insertReadings`, waiting for the commit: how many were accepted.
    @discardableResult
    func insertCommitted(_ readings: [ReadingInput], into reference: SensorReference,
                         createIfMissing: Bool, receivedAt: Timestamp = .now()) throws -> Int {
        try waitForCompletion {
            insertReadings(readings, into: reference, createIfMissing: createIfMissing, receivedAt: receivedAt,
                           completion: $0)
        }
    }
}

/// Starts `work` and waits for the result it completes with.
private func waitForCompletion<T: Sendable>(
    _ work: (@escaping @Sendable (Result<T, any Error>) -> Void) -> Void
) throws -> T {
    let done = DispatchSemaphore(value: 0)
    let box = ResultBox<T>()
    work { result in
        box.result = result
        done.signal()
    }
    done.wait()
    return try box.result!.get()
}

private final class ResultBox<T: Sendable>: @unchecked Sendable {
    // Written before the semaphore's signal, read after its wait.
    var result: Result<T, any Error>?
}

private struct PsqlFailed: Error {
    let message: String
}
