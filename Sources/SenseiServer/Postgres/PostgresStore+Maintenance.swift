import PostgresNIO
import SenseiModels

/// Compaction, retention, size and closing (`MaintenanceStore`).
extension PostgresStore: MaintenanceStore {
    func runCompactionPass(now: Timestamp, betweenBatches: () throws -> Bool) throws -> CompactionPass {
        throw PostgresStoreError.notYet("compaction")
    }

    func runRetentionSweep(now: Timestamp, betweenBatches: () throws -> Bool) throws -> RetentionSweep {
        throw PostgresStoreError.notYet("retention")
    }

    /// The database's size on disk, as PostgreSQL counts it.
    func storedBytes() -> Int {
        (try? read { Int(try $0.row("SELECT pg_database_size(current_database())")?.decode(Int64.self) ?? 0) }) ?? 0
    }

    public func close() throws {
        connections.close()
    }
}
