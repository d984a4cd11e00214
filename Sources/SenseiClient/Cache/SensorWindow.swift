import SenseiModels

/// One sensor's readings over a window, read by the cache in one transaction:
/// the chart's series, the statistics and the newest readings. The dashboard
/// shapes its detail screen from it (`DetailData`).
public struct SensorWindow: Hashable, Sendable {
    public var sensor: Sensor
    /// The window, inclusive (see `bounds(for:now:oldest:)`).
    public var start: Timestamp
    public var end: Timestamp
    /// Raw readings, or buckets for long windows.
    public var series: TimeSeries
    /// Over the window; nil when it holds no readings.
    public var statistics: Statistics?
    /// The newest readings of the window, newest first: a table's first page.
    public var readings: [Reading]
    /// Readings in the window in all.
    public var totalReadings: Int
    /// The device's usual interval in ms, for staleness and gap detection.
    public var usualInterval: Int64?

    public init(sensor: Sensor, start: Timestamp, end: Timestamp, series: TimeSeries, statistics: Statistics?,
                readings: [Reading], totalReadings: Int, usualInterval: Int64?) {
        self.sensor = sensor
        self.start = start
        self.end = end
        self.series = series
        self.statistics = statistics
        self.readings = readings
        self.totalReadings = totalReadings
        self.usualInterval = usualInterval
    }

    /// The window a range shows: the span ending `now`; for `.all`, from the
    /// oldest reading (or a day back when there is none) to `now`.
    public static func bounds(for range: TimeRange, now: Timestamp, oldest: Timestamp?) -> (start: Timestamp, end: Timestamp) {
        if let span = range.milliseconds { return (now.adding(milliseconds: -span), now) }
        let start = min(oldest ?? now.adding(milliseconds: -86_400_000), now.adding(milliseconds: -60_000))
        return (start, now)
    }
}
