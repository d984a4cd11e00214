import Dispatch
import Foundation
import GRDB
import Synchronization

/// Group commit: one writer thread takes every write queued so far, runs them
/// in one transaction, syncs once, then answers them all. Writes that arrive
/// while a commit (and its fsync) is under way wait for the next round, so
/// many concurrent requests pay for one sync instead of one each, and no HTTP
/// worker thread waits for the disk (see `submit`).
///
/// One failing write (an invalid batch) rolls back alone: the group is then
/// run again with a savepoint per write (see `commit`). A completion runs only once the transaction holding
/// its write has committed, or with the error that stopped it.
final class GroupCommit: Sendable {
    private let pool: DatabasePool
    private let queue = Mutex<Queue>(Queue())
    private let wake = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)
    /// Committed transactions so far: a cheap "has anything changed?" for caches.
    let commits = Atomic<UInt64>(0)
    /// Told of each committed transaction, on the writer thread, in the
    /// order added: metrics, the live stream.
    let onCommit = Mutex<[CommitObserver]>([])

    private struct Queue {
        var writes: [any QueuedWrite] = []
        var isStopping = false
    }

    init(pool: DatabasePool) {
        self.pool = pool
        let thread = Thread { [self] in run() }
        thread.name = "sensei-writer"
        thread.start()
    }

    /// Queues `work`; `completion` runs on the writer thread after the commit.
    /// `stored`: for a write of readings, adds what its result says it stored
    /// to what the observers are told.
    func submit<Output: Sendable>(_ work: @escaping @Sendable (Database) throws -> Output,
                                  stored: StoredReport<Output>? = nil,
                                  completion: @escaping @Sendable (Result<Output, any Error>) -> Void) {
        let write = PendingWrite(work: work, stored: stored, completion: completion)
        let accepted = queue.withLock { queue in
            guard !queue.isStopping else { return false }
            queue.writes.append(write)
            return true
        }
        guard accepted else { return completion(.failure(GroupCommitError.stopped)) }
        wake.signal()
    }

    /// `submit`, waiting for the outcome: for commands and rare admin writes.
    func write<Output: Sendable>(_ work: @escaping @Sendable (Database) throws -> Output,
                                 stored: StoredReport<Output>? = nil) throws -> Output {
        try Self.waitFor { completion in submit(work, stored: stored, completion: completion) }.get()
    }

    /// The one "submit and wait": calls `submit` with a completion and blocks
    /// until the completion has run. Only for threads that may wait for the
    /// writer (a command, the MQTT network loop), never an HTTP worker.
    static func waitFor<Output: Sendable>(
        _ submit: (_ completion: @escaping @Sendable (Result<Output, any Error>) -> Void) -> Void
    ) -> Result<Output, any Error> {
        let outcome = Mutex<Result<Output, any Error>>(.failure(GroupCommitError.stopped))
        let done = DispatchSemaphore(value: 0)
        submit { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return outcome.withLock { $0 }
    }

    /// Finishes every queued write, then ends the writer thread.
    func stop() {
        let first = queue.withLock { queue in
            defer { queue.isStopping = true }
            return !queue.isStopping
        }
        guard first else { return }
        wake.signal()
        stopped.wait()
    }

    private func run() {
        // The write path's statements are prepared once for this thread, and
        // let go before `stop` returns and the pool may close.
        WriterStatements.attached {
            while true {
                wake.wait()
                let (writes, isStopping) = queue.withLock { queue in
                    defer { queue.writes.removeAll(keepingCapacity: true) }
                    return (queue.writes, queue.isStopping)
                }
                if !writes.isEmpty { commit(writes) }
                if isStopping && queue.withLock({ $0.writes.isEmpty }) { break }
            }
        }
        stopped.signal()
    }

    /// Runs the writes in one transaction. Optimistically without savepoints
    /// (two extra statements a write); if one of them fails, the whole
    /// transaction is rolled back and run again with each write in its own
    /// savepoint, so that only the failing one is refused.
    private func commit(_ writes: [any QueuedWrite]) {
        do {
            do {
                try transaction(writes, isolating: false)
            } catch is WriteFailed {
                try transaction(writes, isolating: true)
            }
            commits.add(1, ordering: .releasing)
            let observers = onCommit.withLock { $0 }
            if !observers.isEmpty {
                var stored: [StoredReadings] = []
                for write in writes { write.report(into: &stored) }
                let summary = CommitSummary(writes: writes.count, stored: stored)
                for observer in observers { observer.committed(summary) }
            }
        } catch {
            // The transaction could not begin or commit: nothing in it was stored.
            for write in writes { write.refuse(error) }
        }
        for write in writes { write.answer() }
    }

    /// One transaction over `writes`. Not isolating, the first failing write
    /// throws `WriteFailed` and rolls everything back.
    private func transaction(_ writes: [any QueuedWrite], isolating: Bool) throws {
        try pool.writeWithoutTransaction { db in
            try Self.inTransaction(db) {
                try Self.run(writes, isolating: isolating, in: db)
            }
        }
    }

    /// `body` in a transaction whose BEGIN and COMMIT are prepared once:
    /// GRDB's `inTransaction` parses both again for every transaction.
    private static func inTransaction(_ db: Database, _ body: () throws -> Void) throws {
        try BoundStatement(db.writeStatement("BEGIN IMMEDIATE")).run()
        do {
            try body()
            try BoundStatement(db.writeStatement("COMMIT")).run()
        } catch {
            // A failed COMMIT may have ended the transaction already.
            if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
            throw error
        }
    }

    private static func run(_ writes: [any QueuedWrite], isolating: Bool, in db: Database) throws {
        for write in writes {
            guard isolating else {
                do {
                    try write.perform(db)
                } catch {
                    throw WriteFailed()
                }
                continue
            }
            do {
                try db.inSavepoint {
                    try write.perform(db)
                    return .commit
                }
            } catch {
                write.refuse(error)
            }
        }
    }
}

/// How a write's result adds what it stored (`StoredReadings`) to the list
/// the observers get: one sensor's write appends itself, a write over many
/// sensors appends each.
typealias StoredReport<Output> = @Sendable (Output, inout [StoredReadings]) -> Void

/// A write threw in the optimistic pass: roll back and isolate.
private struct WriteFailed: Error {}

enum GroupCommitError: Error, CustomStringConvertible {
    case stopped

    var description: String { "the store is shutting down" }
}

/// A queued write whatever its result type, as the writer thread drives it.
private protocol QueuedWrite: Sendable {
    /// Runs the write in the open transaction and keeps its result.
    func perform(_ db: Database) throws
    /// Keeps `error` as the outcome instead: the write (or its transaction) failed.
    func refuse(_ error: any Error)
    /// Adds what the kept result says was stored; nothing for a refused write.
    func report(into stored: inout [StoredReadings])
    /// Hands the kept outcome to the completion, once the transaction is over.
    func answer()
}

/// One write and its typed outcome. Unchecked: `outcome` is touched only by
/// the writer thread, between taking the write off the queue and answering it.
private final class PendingWrite<Output: Sendable>: QueuedWrite, @unchecked Sendable {
    private let work: @Sendable (Database) throws -> Output
    private let stored: StoredReport<Output>?
    private let completion: @Sendable (Result<Output, any Error>) -> Void
    private var outcome: Result<Output, any Error>?

    init(work: @escaping @Sendable (Database) throws -> Output, stored: StoredReport<Output>?,
         completion: @escaping @Sendable (Result<Output, any Error>) -> Void) {
        self.work = work
        self.stored = stored
        self.completion = completion
    }

    func perform(_ db: Database) throws {
        outcome = .success(try work(db))
    }

    func refuse(_ error: any Error) {
        outcome = .failure(error)
    }

    func report(into stored: inout [StoredReadings]) {
        guard let report = self.stored, case .success(let output)? = outcome else { return }
        report(output, &stored)
    }

    func answer() {
        // Every write is performed or refused before it is answered.
        completion(outcome ?? .failure(GroupCommitError.stopped))
    }
}
