import Dispatch
import Foundation
import Logging
import Synchronization

/// Deletes readings past their sensor's retention: a sweep when started, then
/// one every `interval` seconds, each in small batches with a short pause
/// between them so that posts queued meanwhile commit without waiting for the
/// next batch.
///
/// It runs on its own thread because a batch waits for the writer: that wait
/// must not hold one of the few threads of Swift's cooperative pool (two on
/// the reference machine) or an HTTP worker.
final class RetentionSweeper: Sendable {
    private let store: SenseiStore
    private let interval: TimeInterval
    private let pause: TimeInterval
    private let logger: Logger
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let state = Mutex(State.idle)

    private enum State {
        case idle, running, stopped
    }

    init(store: SenseiStore, interval: TimeInterval, pause: TimeInterval = 0.01, logger: Logger) {
        self.store = store
        self.interval = interval
        self.pause = pause
        self.logger = logger
    }

    func start() {
        let starts = state.withLock { state in
            guard state == .idle else { return false }
            state = .running
            return true
        }
        guard starts else { return }
        let thread = Thread { [self] in run() }
        thread.name = "sensei-retention"
        thread.start()
    }

    /// Ends the sweep under way after its current batch, and waits for that.
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
            sweep()
        } while sleep(interval)
        finished.signal()
    }

    /// Waits `seconds` or until `stop`; true if the sweeper should go on.
    private func sleep(_ seconds: TimeInterval) -> Bool {
        // `stop` signals once, after it marks the state: whichever wait took
        // the signal, every later call ends here.
        guard isRunning else { return false }
        _ = wake.wait(timeout: .now() + seconds)
        return isRunning
    }

    private func sweep() {
        do {
            let sweep = try store.sweepRetention { sleep(pause) }
            guard sweep.deleted > 0 else { return }
            let (seconds, attoseconds) = sweep.longestBatch.components
            let held = String(format: "%.1f", Double(seconds) * 1e3 + Double(attoseconds) / 1e15)
            logger.info(
                "retention: deleted \(sweep.deleted) readings in \(sweep.batches) batches; longest batch \(held) ms")
        } catch {
            logger.error("retention sweep failed: \(error)")
        }
    }
}
