import Foundation
import Logging

/// Store upkeep on a thread of its own: a pass when started, then one every
/// `interval` seconds, each in small batches with a short pause between them
/// (`WorkerThread.Round.pause`) so that writes are never held up for long.
/// Compaction and retention are the two kinds; stopping ends the pass under
/// way after its current batch, and waits for that.
final class MaintenanceWorker: Sendable {
    /// One pass: given what to call between batches, returns the line to log
    /// about it, or nil when it found nothing to do.
    typealias Pass = @Sendable (_ betweenBatches: () throws -> Bool) throws -> String?

    private let worker: WorkerThread
    private let work: WorkerThread.Work

    /// `holdsLease`: whether this node does the upkeep now; of several nodes
    /// on one database, only the one holding the lease does (`NodeLink`).
    init(name: String, interval: TimeInterval, pause: TimeInterval = 0.01, logger: Logger,
         holdsLease: @escaping @Sendable () -> Bool, pass: @escaping Pass) {
        worker = WorkerThread(name: "sensei-\(name)")
        work = { round in
            guard holdsLease() else { return interval }
            do {
                if let summary = try pass({ round.pause(pause) }) {
                    logger.info("\(name): \(summary)")
                }
            } catch {
                logger.error("\(name) failed: \(error)")
            }
            return interval
        }
    }

    func start() { worker.start(work) }

    func stop() { worker.stop() }
}

extension MaintenanceWorker {
    /// Packs readings more than a day old into compressed blocks
    /// (`MaintenanceStore.runCompactionPass`), so an hour is packed within
    /// `interval` of becoming old enough.
    static func compaction(store: any MaintenanceStore, interval: TimeInterval, logger: Logger,
                           holdsLease: @escaping @Sendable () -> Bool) -> MaintenanceWorker {
        MaintenanceWorker(name: "compaction", interval: interval, logger: logger,
                          holdsLease: holdsLease) { betweenBatches in
            let pass = try store.runCompactionPass(now: .now(), betweenBatches: betweenBatches)
            guard pass.packedHours > 0 else { return nil }
            return """
                packed \(pass.packedReadings) readings into \(pass.packedHours) hour blocks \
                in \(pass.batches) batches; \(pass.freedPages) pages freed
                """
        }
    }

    /// Deletes readings past their sensor's retention
    /// (`MaintenanceStore.runRetentionSweep`).
    static func retention(store: any MaintenanceStore, interval: TimeInterval, logger: Logger,
                          holdsLease: @escaping @Sendable () -> Bool) -> MaintenanceWorker {
        MaintenanceWorker(name: "retention", interval: interval, logger: logger,
                          holdsLease: holdsLease) { betweenBatches in
            let sweep = try store.runRetentionSweep(now: .now(), betweenBatches: betweenBatches)
            guard sweep.deleted > 0 else { return nil }
            return """
                deleted \(sweep.deleted) readings in \(sweep.batches) batches; \
                longest batch \(milliseconds(sweep.longestBatch)) ms
                """
        }
    }
}

/// `duration` in milliseconds, one decimal.
private func milliseconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    return String(format: "%.1f", Double(seconds) * 1e3 + Double(attoseconds) / 1e15)
}
