import Foundation
import Logging

/// Packs readings more than a day old into compressed blocks
/// (`MaintenanceStore.runCompactionPass`): a pass when started, then one every `interval`
/// seconds, so an hour is packed within that long of becoming old enough.
final class Compactor: Sendable {
    private let periodic: PeriodicWork

    init(store: any MaintenanceStore, interval: TimeInterval, pause: TimeInterval = 0.01, logger: Logger) {
        periodic = PeriodicWork(name: "sensei-compaction", interval: interval, pause: pause) { pause in
            do {
                let pass = try store.runCompactionPass(now: .now()) { pause() }
                guard pass.packedHours > 0 else { return }
                logger.info("""
                    compaction: packed \(pass.packedReadings) readings into \(pass.packedHours) hour blocks \
                    in \(pass.batches) batches; \(pass.freedPages) pages freed
                    """)
            } catch {
                logger.error("compaction failed: \(error)")
            }
        }
    }

    func start() { periodic.start() }

    /// Ends the pass under way after its current batch, and waits for that.
    func stop() { periodic.stop() }
}
