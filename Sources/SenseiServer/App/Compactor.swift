import Foundation
import Logging

/// Packs readings more than a day old into compressed blocks
/// (`MaintenanceStore.runCompactionPass`): a pass when started, then one every `interval`
/// seconds, so an hour is packed within that long of becoming old enough.
final class Compactor: Sendable {
    private let worker = WorkerThread(name: "sensei-compaction")
    private let pass: WorkerThread.Work

    init(store: any MaintenanceStore, interval: TimeInterval, pause: TimeInterval = 0.01, logger: Logger) {
        pass = { round in
            do {
                let pass = try store.runCompactionPass(now: .now()) { round.pause(pause) }
                if pass.packedHours > 0 {
                    logger.info("""
                        compaction: packed \(pass.packedReadings) readings into \(pass.packedHours) hour blocks \
                        in \(pass.batches) batches; \(pass.freedPages) pages freed
                        """)
                }
            } catch {
                logger.error("compaction failed: \(error)")
            }
            return interval
        }
    }

    func start() { worker.start(pass) }

    /// Ends the pass under way after its current batch, and waits for that.
    func stop() { worker.stop() }
}
