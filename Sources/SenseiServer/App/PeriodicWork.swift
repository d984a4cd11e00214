import Dispatch
import Foundation
import Synchronization

/// Runs `work` when started, then every `interval` seconds, on a thread of its
/// own, until stopped. `work` is given `pause`, which waits `pauseSeconds`
/// (or less, when stopping) and says whether to go on: housekeeping that
/// writes in small batches calls it between them, so that posts queued
/// meanwhile commit without waiting for the next batch.
///
/// A thread, not a task: a batch waits for the writer, and that wait must not
/// hold one of the few threads of Swift's cooperative pool (two on the
/// reference machine) or an HTTP worker.
final class PeriodicWork: Sendable {
    typealias Work = @Sendable (_ pause: () -> Bool) -> Void

    private let name: String
    private let interval: TimeInterval
    private let pauseSeconds: TimeInterval
    private let work: Work
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let state = Mutex(State.idle)

    private enum State {
        case idle, running, stopped
    }

    init(name: String, interval: TimeInterval, pause: TimeInterval = 0.01, work: @escaping Work) {
        self.name = name
        self.interval = interval
        self.pauseSeconds = pause
        self.work = work
    }

    func start() {
        let starts = state.withLock { state in
            guard state == .idle else { return false }
            state = .running
            return true
        }
        guard starts else { return }
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    /// Ends the work under way after its current batch, and waits for that.
    func stop() {
        let wasRunning = state.withLock { state in
            defer { state = .stopped }
            return state == .running
        }
        guard wasRunning else { return }
        wake.signal()
        finished.wait()
    }

    private var isRunning: Bool { state.withLock { $0 == .running } }

    private func run() {
        repeat {
            work { sleep(pauseSeconds) }
        } while sleep(interval)
        finished.signal()
    }

    /// Waits `seconds` or until `stop`; true if the work should go on.
    private func sleep(_ seconds: TimeInterval) -> Bool {
        // `stop` signals once, after it marks the state: whichever wait took
        // the signal, every later call ends here.
        guard isRunning else { return false }
        _ = wake.wait(timeout: .now() + seconds)
        return isRunning
    }
}
