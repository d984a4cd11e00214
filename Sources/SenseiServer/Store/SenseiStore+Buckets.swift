import GRDB
import SenseiModels

extension SenseiStore {
    /// The inclusive range [after, before] cut into `count` equal spans, one
    /// bucket per span that holds readings, oldest first. Computed in SQL on
    /// the clustered (sensor, ts) key: one contiguous range read.
    ///
    /// The range is `before - after + 1` milliseconds long; a reading at `ts`
    /// falls in span `(ts - after) * count / length` (integer division), and a
    /// bucket's timestamp is the first millisecond of its span,
    /// `after + ⌈i * length / count⌉`.
    public func buckets(of reference: SensorReference, after: Timestamp, before: Timestamp,
                        count: Int) throws -> (Sensor, [Bucket]) {
        try pool.read { db in
            guard let sensor = try Self.fetchSensor(reference, in: db) else {
                throw StoreError.sensorNotFound(reference)
            }
            let length = before.milliseconds - after.milliseconds + 1
            let statement = try db.cachedStatement(sql: """
                SELECT (ts - ?1) * ?2 / ?3 AS span, avg(value), min(value), max(value), count(*)
                FROM readings
                WHERE sensor_id = ?4 AND ts >= ?1 AND ts <= ?5
                GROUP BY span ORDER BY span
                """)
            let rows = try Row.fetchCursor(statement, arguments: [
                after.milliseconds, count, length, sensor.id, before.milliseconds,
            ])
            var buckets: [Bucket] = []
            while let row = try rows.next() {
                let span: Int64 = row[0]
                let start = after.milliseconds + (span * length + Int64(count) - 1) / Int64(count)
                buckets.append(Bucket(timestamp: Timestamp(milliseconds: start),
                                      mean: row[1], min: row[2], max: row[3], count: row[4]))
            }
            return (sensor, buckets)
        }
    }
}
