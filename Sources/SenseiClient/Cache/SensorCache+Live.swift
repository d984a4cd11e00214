import GRDB
import SenseiModels

extension SensorCache {
    /// Keeps readings the live stream pushed: each stored as a sync would
    /// (rollups included), and its sensor's latest reading and count moved
    /// on, so the list shows it before the next sync. Readings of sensors the
    /// cache does not know yet are left to that sync. Returns the sensors
    /// that took readings, and whether any reading was left.
    public func storeLive(_ readings: [LiveReading]) throws -> (stored: Set<Int64>, unknown: Bool) {
        let known = try pool.read { db in Set(try Int64.fetchAll(db, sql: "SELECT id FROM sensors")) }
        var stored = Set<Int64>()
        var unknown = false
        for (sensorId, group) in Dictionary(grouping: readings, by: \.sensorId) {
            guard known.contains(sensorId) else {
                unknown = true
                continue
            }
            let sorted = group.map(\.reading).sorted { $0.timestamp < $1.timestamp }
            try insertReadings(sorted, sensorId: sensorId)
            let newest = sorted.last!
            try pool.write { db in
                try db.execute(sql: """
                    UPDATE sensors SET count = count + ?,
                        latest_value = CASE WHEN latest_ts IS NULL OR ?2 >= latest_ts THEN ?3 ELSE latest_value END,
                        latest_ts = CASE WHEN latest_ts IS NULL OR ?2 >= latest_ts THEN ?2 ELSE latest_ts END
                    WHERE id = ?4
                    """, arguments: [sorted.count, newest.timestamp.milliseconds, newest.value, sensorId])
            }
            stored.insert(sensorId)
        }
        return (stored, unknown)
    }
}
