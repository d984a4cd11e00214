import Dispatch
import GRDB
import Synchronization

/// Group commit: writes that arrive while a transaction is being committed
/// wait and then go together into the next one, so many concurrent requests
/// pay for one `fsync` instead of one each.
///
/// Each write runs in its own savepoint, so one failing write (an invalid
/// batch) rolls back alone. A caller returns only once the transaction holding
/// its write has committed, or with the error that stopped it.
final class GroupCommit: Sendable {
    private let pool: DatabasePool
    private let pending = Mutex<[PendingWrite]>([])

    init(pool: DatabasePool) {
        self.pool = pool
    }

    func write<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) throws -> T {
        let entry = PendingWrite { db in try work(db) }
        pending.withLock { $0.append(entry) }
        runPendingWrites()
        // Set by this thread's transaction, or by an earlier one that took the entry.
        entry.done.wait()
        return try entry.result.withLock { $0! }.get() as! T
    }

    /// Takes everything queued so far into one transaction. When another
    /// thread's transaction already took our entry this is an empty transaction
    /// that merely waits for the writer lock, which costs no sync.
    private func runPendingWrites() {
        var taken: [PendingWrite] = []
        var outcomes: [Result<any Sendable, any Error>] = []
        do {
            try pool.write { db in
                taken = pending.withLock { queue in
                    defer { queue.removeAll(keepingCapacity: true) }
                    return queue
                }
                outcomes = taken.map { entry in
                    var outcome: Result<any Sendable, any Error> = .failure(CancellationError())
                    do {
                        try db.inSavepoint {
                            outcome = .success(try entry.work(db))
                            return .commit
                        }
                    } catch {
                        outcome = .failure(error)
                    }
                    return outcome
                }
            }
        } catch {
            // The transaction could not begin or commit: nothing in it was stored.
            if taken.isEmpty {
                taken = pending.withLock { queue in
                    defer { queue.removeAll(keepingCapacity: true) }
                    return queue
                }
            }
            outcomes = taken.map { _ in .failure(error) }
        }
        for (entry, outcome) in zip(taken, outcomes) {
            entry.result.withLock { $0 = outcome }
            entry.done.signal()
        }
    }
}

private final class PendingWrite: Sendable {
    let work: @Sendable (Database) throws -> any Sendable
    let result = Mutex<Result<any Sendable, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)

    init(work: @escaping @Sendable (Database) throws -> any Sendable) {
        self.work = work
    }
}
