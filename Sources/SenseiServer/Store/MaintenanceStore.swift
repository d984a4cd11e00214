import Logging
import Foundation
import SenseiModels

/// The background work on the stored data (packing old hours, cutting
/// expired readings), its size for metrics, and closing.
protocol MaintenanceStore: AnyObject, Sendable {
    /// Packs the hours that ended more than a day ago, in batches the
    /// backend sizes; `betweenBatches` false stops the pass.
    func runCompactionPass(now: Timestamp, betweenBatches: () throws -> Bool) throws -> CompactionPass
    /// Deletes readings past their sensor's retention, likewise in batches.
    func runRetentionSweep(now: Timestamp, betweenBatches: () throws -> Bool) throws -> RetentionSweep
    /// What the data takes on disk, for `sensei_database_bytes`.
    func storedBytes() -> Int
    /// Finishes queued writes, then closes.
    func close() throws
    /// This node among the others on the database (`node`: `--node-id`).
    func nodeLink(node: String, logger: Logger) -> any NodeLink
}

extension SenseiStore: MaintenanceStore {
    /// A data directory has one server (`DataDirectoryLock`).
    func nodeLink(node: String, logger: Logger) -> any NodeLink {
        SoleNode(node: node)
    }

    func runCompactionPass(now: Timestamp, betweenBatches: () throws -> Bool) throws -> CompactionPass {
        try compact(now: now, betweenBatches: betweenBatches)
    }

    func runRetentionSweep(now: Timestamp, betweenBatches: () throws -> Bool) throws -> RetentionSweep {
        try sweepRetention(now: now, betweenBatches: betweenBatches)
    }

    /// The database file and its WAL.
    func storedBytes() -> Int {
        Self.fileSize(path) + Self.fileSize(path + "-wal")
    }

    /// 0 for a file that is not there (no WAL yet).
    private static func fileSize(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }
}

/// Every seam at once: what the application wires its parts to.
typealias SenseiStorage = SensorStore & ReadingStore & RollupStore & AlertStore & TokenStore & MaintenanceStore
