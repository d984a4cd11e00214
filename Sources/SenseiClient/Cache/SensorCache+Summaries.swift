import GRDB
import SenseiModels

extension SensorCache {
    /// The sparkline's window.
    public static let sparklineSpan: Int64 = 86_400_000
    /// Readings in 24 hours above which the sparkline gets 5-minute buckets
    /// (288 of them: finer than any row of cells) instead of raw readings.
    public static let sparklineRawLimit = 1_000

    /// A busy sensor's sparkline: 5-minute buckets, 288 a day (more than the
    /// widest sparkline has dot columns).
    static let sparklineBucket: Int64 = 5 * 60_000

    /// Every cached sensor in the user's order, each with its last 24 hours up
    /// to `now` and usual interval (`sensei list`). One read transaction.
    public func sensorsWithRecent(now: Timestamp) throws -> [(sensor: Sensor, recent: RecentSeries)] {
        try pool.read { db in
            try Self.fetchSensors(db, sql: "ORDER BY position, id", arguments: []).map { sensor in
                (sensor, try Self.recent(sensorId: sensor.id, now: now, in: db))
            }
        }
    }

    /// These sensors as cached now, by id; those gone are absent.
    public func sensors(ids: Set<Int64>) throws -> [Sensor] {
        try pool.read { db in try ids.sorted().compactMap { try Self.fetchSensor(id: $0, in: db) } }
    }

    /// The last 24 hours up to `now` and usual interval of each of these
    /// sensors still cached. One read transaction.
    public func recent(sensorIds: [Int64], now: Timestamp) throws -> [Int64: RecentSeries] {
        try pool.read { db in
            var found: [Int64: RecentSeries] = [:]
            for id in sensorIds where try Self.isCached(id, in: db) {
                found[id] = try Self.recent(sensorId: id, now: now, in: db)
            }
            return found
        }
    }

    static func isCached(_ sensorId: Int64, in db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sensors WHERE id = ?)", arguments: [sensorId]) ?? false
    }

    /// A sensor's sparkline: raw readings, or 5-minute buckets when there are many.
    static func recent(sensorId: Int64, now: Timestamp, in db: Database) throws -> RecentSeries {
        let end = now.milliseconds, start = end - sparklineSpan
        let buckets = try buckets(sensorId: sensorId, from: start, through: end, span: sparklineBucket,
                                  level: RollupLevel.minute, in: db)
        let count = buckets.reduce(0) { $0 + $1.count }
        var series = TimeSeries()
        if count > sparklineRawLimit {
            series = TimeSeries(buckets: buckets.map(\.bucket))
        } else if count > 0 {
            series = try rawSeries(sensorId: sensorId, from: start, through: end, in: db)
        }
        return RecentSeries(series: series, usualInterval: try usualInterval(sensorId: sensorId, in: db), asOf: now)
    }
}
