import Dispatch
import Foundation
import Synchronization

/// A loop on a thread of its own: a round runs, then the thread waits the
/// seconds it returned, or less when `wake` is called, and goes round again
/// until `stop`. The one thread, semaphore and running flag behind the
/// server's background parts (alerts, the live stream's heartbeat,
/// compaction, retention, the log).
///
/// A thread, not a task: a round may wait for the store's writer or a
/// receiver's answer, and that wait must not hold one of the few threads of
/// Swift's cooperative pool (two on the reference machine) or an HTTP worker.
final class WorkerThread: Sendable {
    /// What a round may ask of its thread.
    struct Round: Sendable {
        fileprivate let worker: WorkerThread

        /// `stop` was called: end the round soon.
        var isStopping: Bool { !worker.isRunning }

        /// Waits `seconds`, or less when stopping; true if the round should go on.
        /// Work in small batches calls it between them, so that writes queued
        /// meanwhile commit without waiting for the next batch.
        func pause(_ seconds: TimeInterval) -> Bool { worker.sleep(seconds) }
    }

    private enum State {
        case idle, running, stopped
    }

    typealias Work = @Sendable (Round) -> TimeInterval

    private let name: String
    private let state = Mutex(State.idle)
    private let wakeUp = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(name: String) {
        self.name = name
    }

    /// Starts the thread, running `round` until stopped: it returns the
    /// seconds to wait before the next. Later calls, and calls after `stop`,
    /// do nothing.
    func start(_ round: @escaping Work) {
        let starts = state.withLock { state in
            guard state == .idle else { return false }
            state = .running
            return true
        }
        guard starts else { return }
        let thread = Thread { [self] in run(round) }
        thread.name = name
        thread.start()
    }

    /// Ends the wait under way, if any: the next round starts now.
    func wake() {
        wakeUp.signal()
    }

    /// Ends the loop after the round under way, and waits for that (at most
    /// `timeout`; false if it did not end by then).
    @discardableResult
    func stop(timeout: DispatchTime = .distantFuture) -> Bool {
        let wasRunning = state.withLock { state in
            defer { state = .stopped }
            return state == .running
        }
        guard wasRunning else { return true }
        wakeUp.signal()
        return finished.wait(timeout: timeout) == .success
    }

    private var isRunning: Bool { state.withLock { $0 == .running } }

    private func run(_ round: Work) {
        let handle = Round(worker: self)
        while sleep(round(handle)) {}
        finished.signal()
    }

    /// Waits `seconds` or until woken; true while running.
    private func sleep(_ seconds: TimeInterval) -> Bool {
        // `stop` marks the state before it signals: whichever wait took the
        // signal, every later call ends here.
        guard isRunning else { return false }
        _ = wakeUp.wait(timeout: .now() + seconds)
        return isRunning
    }
}
