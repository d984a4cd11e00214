import GRDB
import SenseiModels

extension SenseiStore {
    /// The inclusive range [after, before] cut into `count` equal spans, one
    /// bucket per span that holds readings, oldest first; `BucketSpans` says
    /// which reading falls in which span and where a span starts.
    ///
    /// Spans of two minutes or more are aggregated from the minute and hour
    /// rollups (`RollupCover`), and the readings after the rollup frontier;
    /// shorter ones from the readings in plain SQL on the clustered
    /// (sensor, ts) key. Both give the same count, min and max;
    /// a mean from the rollups adds the same values in another order, so it
    /// may differ from SQL's `avg` in its last bits (tests allow 1e-9 relative).
    public func buckets(of reference: SensorReference, after: Timestamp, before: Timestamp,
                        count: Int) throws -> (Sensor, [Bucket]) {
        try pool.read { db in
            guard let sensor = try Self.fetchSensor(reference, in: db) else {
                throw StoreError.sensorNotFound(reference)
            }
            guard after <= before, count >= 1 else { return (sensor, []) }
            let spans = BucketSpans(after: after.milliseconds, before: before.milliseconds, count: count)
            let levels = spans.rollupLevels
            if levels.isEmpty {
                return (sensor, try Self.bucketsFromReadings(of: sensor.id, spans, in: db))
            }
            var cover = RollupCover(sensorID: sensor.id, spans: spans, levels: levels)
            try cover.coverRange(rolledUpUntil: Self.rollupsUntil(of: sensor.id, in: db), in: db)
            return (sensor, spans.buckets(from: cover.aggregates))
        }
    }

    /// The sensor's rollup frontier (see `RollupFold`), in the same read
    /// transaction as the rollups, so the two agree.
    static func rollupsUntil(of sensorID: Int64, in db: Database) throws -> Int64? {
        let statement = BoundStatement(try db.cachedStatement(sql: "SELECT rollups_until FROM sensors WHERE id = ?"))
        statement.bind(1, sensorID)
        return try statement.first { $0.optionalInt64(0) } ?? nil
    }

    private static func bucketsFromReadings(of sensorID: Int64, _ spans: BucketSpans,
                                            in db: Database) throws -> [Bucket] {
        let range = ReadingRange(sensorID: sensorID, lo: spans.after, hi: spans.before)
        if try range.touchesPackedHours(in: db) {
            var aggregates = Array(repeating: Aggregate.empty, count: Int(spans.count))
            try range.forEach(ascending: true, in: db) { ts, value in
                aggregates[spans.span(of: ts)].add(value)
                return true
            }
            return spans.buckets(from: aggregates)
        }
        let statement = try db.cachedStatement(sql: """
            SELECT min((ts - ?1) * ?2 / max(?3, 1), ?2 - 1) AS span, avg(value) AS mean, min(value) AS min,
                   max(value) AS max, count(*) AS count
            FROM readings
            WHERE sensor_id = ?4 AND ts >= ?1 AND ts <= ?5
            GROUP BY span ORDER BY span
            """)
        let rows = try Row.fetchCursor(statement, arguments: [
            spans.after, spans.count, spans.length, sensorID, spans.before,
        ])
        var buckets: [Bucket] = []
        while let row = try rows.next() {
            buckets.append(Bucket(timestamp: Timestamp(milliseconds: spans.start(ofSpan: row["span"])),
                                  mean: row["mean"], min: row["min"], max: row["max"], count: row["count"]))
        }
        return buckets
    }
}
