import Foundation
import Logging

/// Deletes readings past their sensor's retention: a sweep when started, then
/// one every `interval` seconds, each in small batches with a short pause
/// between them (`WorkerThread.Round.pause`).
final class RetentionSweeper: Sendable {
    private let worker = WorkerThread(name: "sensei-retention")
    private let pass: WorkerThread.Work

    init(store: any MaintenanceStore, interval: TimeInterval, pause: TimeInterval = 0.01, logger: Logger) {
        pass = { round in
            do {
                let sweep = try store.runRetentionSweep(now: .now()) { round.pause(pause) }
                if sweep.deleted > 0 {
                    logger.info("""
                        retention: deleted \(sweep.deleted) readings in \(sweep.batches) batches; \
                        longest batch \(milliseconds(sweep.longestBatch)) ms
                        """)
                }
            } catch {
                logger.error("retention sweep failed: \(error)")
            }
            return interval
        }
    }

    func start() { worker.start(pass) }

    /// Ends the sweep under way after its current batch, and waits for that.
    func stop() { worker.stop() }
}

/// `duration` in milliseconds, one decimal.
private func milliseconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    return String(format: "%.1f", Double(seconds) * 1e3 + Double(attoseconds) / 1e15)
}
