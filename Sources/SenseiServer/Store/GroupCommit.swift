import Dispatch
import Foundation
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
///
/// The database behind it is a `GroupTransactions`: SQLite's file
/// (`SQLiteTransactions`) or a PostgreSQL connection (`PostgresTransactions`).
final class GroupCommit<Transactions: GroupTransactions>: Sendable {
    typealias Session = Transactions.Session
    private let transactions: Transactions
    private let queue = Mutex<Queue>(Queue())
    private let wake = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)
    /// Committed transactions so far: a cheap "has anything changed?" for caches.
    let commits = Atomic<UInt64>(0)
    /// Writes done by `GroupTransactions.performTogether` so far (tests look).
    let writesTogether = Atomic<Int>(0)
    /// Told of each committed transaction, on the writer thread, in the
    /// order added: metrics, the live stream.
    let onCommit = Mutex<[CommitObserver]>([])

    private struct Queue {
        var writes: [any QueuedWrite<Session>] = []
        var isStopping = false
    }

    init(_ transactions: Transactions) {
        self.transactions = transactions
        let thread = Thread { [self] in run() }
        thread.name = "sensei-writer"
        thread.start()
    }

    /// Queues `work`; `completion` runs on the writer thread after the commit.
    /// `stored`: for a write of readings, adds what its result says it stored
    /// to what the observers are told.
    /// `together`: what of the write the store may run together with other
    /// writes of the group (`GroupTransactions.performTogether`); `work`
    /// then runs only when that could not.
    func submit<Output: Sendable>(_ work: @escaping @Sendable (Session) throws -> Output,
                                  stored: StoredReport<Output>? = nil, together: (any Sendable)? = nil,
                                  completion: @escaping @Sendable (Result<Output, any Error>) -> Void) {
        let write = PendingWrite(work: work, stored: stored, together: together, completion: completion)
        let accepted = queue.withLock { queue in
            guard !queue.isStopping else { return false }
            queue.writes.append(write)
            return true
        }
        guard accepted else { return completion(.failure(GroupCommitError.stopped)) }
        wake.signal()
    }

    /// `submit`, waiting for the outcome: for commands and rare admin writes.
    func write<Output: Sendable>(_ work: @escaping @Sendable (Session) throws -> Output,
                                 stored: StoredReport<Output>? = nil) throws -> Output {
        try CommitWait.waitFor { completion in submit(work, stored: stored, completion: completion) }.get()
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
        transactions.writerLoop {
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
    private func commit(_ writes: [any QueuedWrite<Session>]) {
        do {
            let stored: [StoredReadings]
            do {
                stored = try transaction(writes, isolating: false)
            } catch is WriteFailed {
                stored = try transaction(writes, isolating: true)
            }
            committed(writes: writes.count, stored: stored)
        } catch {
            // The transaction could not begin or commit: nothing in it was stored.
            for write in writes { write.refuse(error) }
        }
        for write in writes { write.answer() }
    }

    /// Counts a committed transaction (for `changeCount`) and tells the
    /// observers what its writes stored. Also for a store's writes outside
    /// the group (PostgreSQL's metadata writes).
    func committed(writes: Int, stored: [StoredReadings]) {
        commits.add(1, ordering: .releasing)
        let observers = onCommit.withLock { $0 }
        guard !observers.isEmpty else { return }
        let summary = CommitSummary(writes: writes, stored: stored)
        for observer in observers { observer.committed(summary) }
    }

    /// One transaction over `writes`. Not isolating, the first failing write
    /// throws `WriteFailed` and rolls everything back.
    /// Returns what the writes stored (told to `beforeCommit`, then to the observers).
    private func transaction(_ writes: [any QueuedWrite<Session>], isolating: Bool) throws -> [StoredReadings] {
        var stored: [StoredReadings] = []
        try transactions.transaction { session in
            var alone = writes
            if !isolating {
                alone = try performTogether(writes, in: session)
            }
            for write in alone {
                guard isolating else {
                    do {
                        try write.perform(session)
                    } catch {
                        throw WriteFailed()
                    }
                    continue
                }
                do {
                    try transactions.savepoint(in: session) { try write.perform(session) }
                } catch {
                    write.refuse(error)
                }
            }
            stored = Self.stored(by: writes)
            try transactions.beforeCommit(stored, in: session)
        }
        return stored
    }

    /// Runs together what the writes offer to (`submit(together:)`); returns
    /// the writes still to perform, in their order. Optimistic pass only:
    /// a failure here rolls back and isolates, as a failing write does.
    private func performTogether(_ writes: [any QueuedWrite<Session>],
                                 in session: Session) throws -> [any QueuedWrite<Session>] {
        guard writes.contains(where: { $0.together != nil }) else { return writes }
        let outputs: [(any Sendable)?]
        do {
            outputs = try transactions.performTogether(writes.map(\.together), in: session)
        } catch {
            throw WriteFailed()
        }
        var alone: [any QueuedWrite<Session>] = []
        for (write, output) in zip(writes, outputs) {
            if let output, write.take(output) { continue }
            alone.append(write)
        }
        writesTogether.add(writes.count - alone.count, ordering: .relaxed)
        return alone
    }

    /// What the writes that succeeded stored, in their order.
    private static func stored(by writes: [any QueuedWrite<Session>]) -> [StoredReadings] {
        var stored: [StoredReadings] = []
        for write in writes { write.report(into: &stored) }
        return stored
    }
}

/// What a group commit needs of its database: one transaction on one
/// connection, and savepoints inside it.
protocol GroupTransactions: Sendable {
    /// What a write is given to run its statements on.
    associatedtype Session
    /// Runs the writer thread's loop (SQLite prepares its statements for the thread around it).
    func writerLoop(_ body: () -> Void)
    /// `body` in one transaction: committed when it returns, rolled back when it throws.
    func transaction(_ body: (Session) throws -> Void) throws
    /// `body` in a savepoint of the open transaction, rolled back to it when it throws.
    func savepoint(in session: Session, _ body: () throws -> Void) throws
    /// Last in each transaction, with what its writes stored: PostgreSQL
    /// tells the other nodes here (`PostgresNodeLink`), in the same commit.
    func beforeCommit(_ stored: [StoredReadings], in session: Session) throws
    /// Runs what the group's writes offer (`submit(together:)`; nil for a
    /// write that offers nothing) in as few statements as it can: for each
    /// write, its output when done, or nil when it must run on its own,
    /// after, in the same transaction, in the group's order. So a write done
    /// here must not come after one left alone that may write the same rows.
    func performTogether(_ parts: [(any Sendable)?], in session: Session) throws -> [(any Sendable)?]
}

extension GroupTransactions {
    func beforeCommit(_ stored: [StoredReadings], in session: Session) throws {}
    func performTogether(_ parts: [(any Sendable)?], in session: Session) throws -> [(any Sendable)?] {
        parts.map { _ in nil }
    }
}

/// Waiting for a write's completion.
enum CommitWait {
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
private protocol QueuedWrite<Session>: AnyObject, Sendable {
    associatedtype Session
    /// What the store may run together with other writes; nil: nothing.
    var together: (any Sendable)? { get }
    /// Keeps `output` (from `performTogether`) as the result; false if it is not this write's type.
    func take(_ output: any Sendable) -> Bool
    /// Runs the write in the open transaction and keeps its result.
    func perform(_ session: Session) throws
    /// Keeps `error` as the outcome instead: the write (or its transaction) failed.
    func refuse(_ error: any Error)
    /// Adds what the kept result says was stored; nothing for a refused write.
    func report(into stored: inout [StoredReadings])
    /// Hands the kept outcome to the completion, once the transaction is over.
    func answer()
}

/// One write and its typed outcome. Unchecked: `outcome` is touched only by
/// the writer thread, between taking the write off the queue and answering it.
private final class PendingWrite<Session, Output: Sendable>: QueuedWrite, @unchecked Sendable {
    private let work: @Sendable (Session) throws -> Output
    private let stored: StoredReport<Output>?
    let together: (any Sendable)?
    private let completion: @Sendable (Result<Output, any Error>) -> Void
    private var outcome: Result<Output, any Error>?

    init(work: @escaping @Sendable (Session) throws -> Output, stored: StoredReport<Output>?,
         together: (any Sendable)?, completion: @escaping @Sendable (Result<Output, any Error>) -> Void) {
        self.work = work
        self.stored = stored
        self.together = together
        self.completion = completion
    }

    func take(_ output: any Sendable) -> Bool {
        guard let output = output as? Output else { return false }
        outcome = .success(output)
        return true
    }

    func perform(_ session: Session) throws {
        outcome = .success(try work(session))
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
