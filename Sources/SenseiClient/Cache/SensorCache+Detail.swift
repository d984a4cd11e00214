import GRDB
import SenseiModels

extension SensorCache {
    /// Readings above which a chart gets buckets rather than raw points.
    public static let rawChartLimit = 5_000
    /// About how many buckets a long chart gets: more than any terminal has dot columns.
    public static let chartBuckets = 2_000
    /// The readings table's first page.
    public static let firstTablePage = 500

    /// One sensor's readings over a range's window as of `now` (the detail
    /// screen's), from one read transaction; nil when the sensor is not cached.
    ///
    /// Statistics and long charts come from the rollups (a year of 30-second
    /// readings is a few thousand rows, not a million), exact at the edges.
    /// `zoom` (inclusive ms), when given, replaces the range's own window.
    public func window(sensorId: Int64, range: TimeRange, now: Timestamp, zoom: ClosedRange<Int64>? = nil,
                       maxBuckets: Int = chartBuckets, rawLimit: Int = rawChartLimit,
                       tablePage: Int = firstTablePage) throws -> SensorWindow? {
        try pool.read { db in
            guard let sensor = try Self.fetchSensor(id: sensorId, in: db) else { return nil }
            let oldest = range == .all && zoom == nil ? try Self.oldestKept(sensorId: sensorId, in: db) : nil
            let window = zoom.map { (start: Timestamp(milliseconds: $0.lowerBound), end: Timestamp(milliseconds: $0.upperBound)) }
                ?? SensorWindow.bounds(for: range, now: now, oldest: oldest)
            // Beyond the raw window the range starts on a whole minute or hour:
            // what is kept there adds up exactly, without a hole or a double count.
            let coverage = try Coverage.read(sensorId: sensorId, in: db)
            let (from, through) = coverage.snap(window.start.milliseconds, window.end.milliseconds)
            // A zoom keeps its own bounds (the model matches answers by them).
            let (start, end) = zoom == nil ? (Timestamp(milliseconds: from), Timestamp(milliseconds: through))
                : (window.start, window.end)
            let statistics = try Self.statistics(sensorId: sensorId, from: from, through: through, in: db)
            let count = statistics?.count ?? 0
            let finest = coverage.finestLevel(at: from)
            var series = TimeSeries()
            if count > rawLimit || finest != nil,
               let plan = Self.bucketPlan(from: from, through: through, maxBuckets: maxBuckets, finest: finest) {
                let buckets = try Self.buckets(sensorId: sensorId, from: from, through: through,
                                               span: plan.span, level: plan.level, in: db)
                series = TimeSeries(buckets: buckets.map(\.bucket))
            } else if count > 0 {
                series = try Self.rawSeries(sensorId: sensorId, from: from, through: through, in: db)
            }
            let readings = try Self.readingsNewestFirst(sensorId: sensorId, from: from, through: through,
                                                        limit: tablePage, in: db)
            return SensorWindow(sensor: sensor, start: start, end: end, series: series, statistics: statistics,
                                readings: readings, totalReadings: count,
                                usualInterval: try Self.usualInterval(sensorId: sensorId, in: db))
        }
    }

    /// Count, extremes with their times, mean, oldest and newest of the
    /// readings in [start, end]; nil when there are none.
    public func statistics(sensorId: Int64, from start: Timestamp, through end: Timestamp) throws -> Statistics? {
        try pool.read { db in
            try Self.statistics(sensorId: sensorId, from: start.milliseconds, through: end.milliseconds, in: db)
        }
    }

    /// Beyond the raw window the times of min and max are those the server
    /// gives, to the minute, and oldest and newest the starts of kept rows.
    static func statistics(sensorId: Int64, from start: Int64, through end: Int64, in db: Database) throws -> Statistics? {
        guard let total = try total(sensorId: sensorId, from: start, through: end, in: db), total.count > 0,
              let bounds = try keptBounds(sensorId: sensorId, from: start, through: end, in: db) else { return nil }
        return Statistics(count: total.count,
                          min: Reading(timestamp: total.minAt, value: total.min),
                          max: Reading(timestamp: total.maxAt, value: total.max),
                          mean: total.mean,
                          oldest: Timestamp(milliseconds: bounds.oldest),
                          newest: Timestamp(milliseconds: bounds.newest))
    }

    /// Readings the usual interval is taken from: the device's latest habit.
    static let intervalSample = 100

    /// The median spacing of the sensor's latest readings; nil with fewer than two.
    static func usualInterval(sensorId: Int64, in db: Database) throws -> Int64? {
        let newestFirst = try Int64.fetchAll(db.cachedStatement(sql: """
            SELECT ts FROM readings WHERE sensor_id = ? ORDER BY ts DESC LIMIT ?
            """), arguments: [sensorId, intervalSample + 1])
        return TimeSeries.medianSpacing(of: newestFirst.reversed())
    }
}
