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

    /// `column` for async tests: on PostgreSQL it runs psql, a child waited
    /// for off the cooperative pool (`offThePool`). Same name: in an async
    /// function Swift picks this, and asks for `await`.
    func column(_ sql: String) async throws -> [String?] {
        try await offThePool { try column(sql) }
    }

    /// `compact` for async tests, off the pool (a pass over every sensor).
    func compact(now: Timestamp) async throws -> CompactionPass {
        try await offThePool { try compact(now: now) }
    }

    /// `insertReadings` for async tests: the wait for the commit, off the pool.
    @discardableResult
    func insertReadings(_ readings: [ReadingInput], into reference: SensorReference,
                        createIfMissing: Bool) async throws -> Int {
        try await offThePool { try insertReadings(readings, into: reference, createIfMissing: createIfMissing) }
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

/// The waits for a commit for async tests, off the cooperative pool
/// (`offThePool`): a test waiting on the store holds no thread of it. Same
/// names: in an async function Swift picks these, and asks for `await`.
extension ReadingStore {
    @discardableResult
    func ingestCommitted(_ points: [SeriesPoint]) async throws -> SeriesIngestOutcome {
        try await offThePool { try self.ingestCommitted(points) }
    }

    @discardableResult
    func insertCommitted(_ readings: [ReadingInput], into reference: SensorReference,
                         createIfMissing: Bool, receivedAt: Timestamp = .now()) async throws -> Int {
        try await offThePool {
            try self.insertCommitted(readings, into: reference, createIfMissing: createIfMissing, receivedAt: receivedAt)
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
