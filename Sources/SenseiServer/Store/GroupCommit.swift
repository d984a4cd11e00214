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
/// Each write runs in its own savepoint, so one failing write (an invalid
/// batch) rolls back alone. A completion runs only once the transaction holding
/// its write has committed, or with the error that stopped it.
final class GroupCommit: Sendable {
    typealias Completion = @Sendable (Result<any Sendable, any Error>) -> Void

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
        var writes: [PendingWrite] = []
        var isStopping = false
    }

    init(pool: DatabasePool) {
        self.pool = pool
        let thread = Thread { [self] in run() }
        thread.name = "sensei-writer"
        thread.start()
    }

    /// Queues `work`; `completion` runs on the writer thread after the commit.
    func submit(_ work: @escaping @Sendable (Database) throws -> any Sendable, completion: @escaping Completion) {
        let accepted = queue.withLock { queue in
            guard !queue.isStopping else { return false }
            queue.writes.append(PendingWrite(work: work, completion: completion))
            return true
        }
        guard accepted else { return completion(.failure(GroupCommitError.stopped)) }
        wake.signal()
    }

    /// `submit`, waiting for the outcome: for commands and rare admin writes.
    func write<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) throws -> T {
        let outcome = Mutex<Result<any Sendable, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        submit({ db in try work(db) }) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return try outcome.withLock { $0! }.get() as! T
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
        while true {
            wake.wait()
            let (writes, isStopping) = queue.withLock { queue in
                defer { queue.writes.removeAll(keepingCapacity: true) }
                return (queue.writes, queue.isStopping)
            }
            if !writes.isEmpty { commit(writes) }
            if isStopping && queue.withLock({ $0.writes.isEmpty }) { break }
        }
        stopped.signal()
    }

    /// Runs the writes in one transaction. Optimistically without savepoints
    /// (two extra statements a write); if one of them fails, the whole
    /// transaction is rolled back and run again with each write in its own
    /// savepoint, so that only the failing one is refused.
    private func commit(_ writes: [PendingWrite]) {
        var outcomes: [Result<any Sendable, any Error>]
        do {
            do {
                outcomes = try transaction(writes, isolating: false)
            } catch is WriteFailed {
                outcomes = try transaction(writes, isolating: true)
            }
            commits.add(1, ordering: .releasing)
            for observer in onCommit.withLock({ $0 }) { observer.committed(outcomes) }
        } catch {
            // The transaction could not begin or commit: nothing in it was stored.
            outcomes = writes.map { _ in .failure(error) }
        }
        for (write, outcome) in zip(writes, outcomes) { write.completion(outcome) }
    }

    /// One transaction over `writes`. Not isolating, the first failing write
    /// throws `WriteFailed` and rolls everything back.
    private func transaction(_ writes: [PendingWrite], isolating: Bool) throws -> [Result<any Sendable, any Error>] {
        var outcomes: [Result<any Sendable, any Error>] = []
        outcomes.reserveCapacity(writes.count)
        try pool.writeWithoutTransaction { db in
            try Self.inTransaction(db) {
                try Self.run(writes, isolating: isolating, in: db, into: &outcomes)
            }
        }
        return outcomes
    }

    /// `body` in a transaction whose BEGIN and COMMIT are prepared once:
    /// GRDB's `inTransaction` parses both again for every transaction.
    private static func inTransaction(_ db: Database, _ body: () throws -> Void) throws {
        try BoundStatement(db.cachedStatement(sql: "BEGIN IMMEDIATE")).run()
        do {
            try body()
            try BoundStatement(db.cachedStatement(sql: "COMMIT")).run()
        } catch {
            // A failed COMMIT may have ended the transaction already.
            if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
            throw error
        }
    }

    private static func run(_ writes: [PendingWrite], isolating: Bool, in db: Database,
                            into outcomes: inout [Result<any Sendable, any Error>]) throws {
        outcomes.removeAll(keepingCapacity: true)
        for write in writes {
            guard isolating else {
                do {
                    outcomes.append(.success(try write.work(db)))
                } catch {
                    throw WriteFailed()
                }
                continue
            }
            var outcome: Result<any Sendable, any Error> = .failure(CancellationError())
            do {
                try db.inSavepoint {
                    outcome = .success(try write.work(db))
                    return .commit
                }
            } catch {
                outcome = .failure(error)
            }
            outcomes.append(outcome)
        }
    }
}

/// A write threw in the optimistic pass: roll back and isolate.
private struct WriteFailed: Error {}

enum GroupCommitError: Error, CustomStringConvertible {
    case stopped

    var description: String { "the store is shutting down" }
}

private struct PendingWrite: Sendable {
    let work: @Sendable (Database) throws -> any Sendable
    let completion: GroupCommit.Completion
}
