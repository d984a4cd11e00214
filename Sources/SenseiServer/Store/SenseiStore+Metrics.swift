import GRDB

extension SenseiStore {
    /// How many sensors there are, for metrics.
    public func sensorCount() throws -> Int {
        try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sensors") ?? 0 }
    }
}
