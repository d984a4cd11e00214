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

    /// The list screen: every cached sensor in the user's order, each with its
    /// last 24 hours up to `now` and usual interval. One read transaction.
    public func sensorSummaries(now: Timestamp) throws -> [SensorSummary] {
        try pool.read { db in
            let sensors = try Self.fetchSensors(db, sql: "ORDER BY position, id", arguments: [])
            let end = now.milliseconds, start = end - Self.sparklineSpan
            return try sensors.map { sensor in
                let buckets = try Self.buckets(sensorId: sensor.id, from: start, through: end,
                                               span: Self.sparklineBucket, level: RollupLevel.minute, in: db)
                let count = buckets.reduce(0) { $0 + $1.count }
                var recent = TimeSeries()
                if count > Self.sparklineRawLimit {
                    recent = TimeSeries(buckets: buckets.map(\.bucket))
                } else if count > 0 {
                    recent = try Self.rawSeries(sensorId: sensor.id, from: start, through: end, in: db)
                }
                return SensorSummary(sensor: sensor, recent: recent,
                                     usualInterval: try Self.usualInterval(sensorId: sensor.id, in: db))
            }
        }
    }
}
