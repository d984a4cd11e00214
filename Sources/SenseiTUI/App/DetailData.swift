import SenseiClient
import SenseiModels

/// Everything the detail screen shows for one sensor and range, filled by the
/// runtime from the cache in answer to `Command.loadDetail`.
public struct DetailData: Hashable, Sendable {
    public var sensor: Sensor
    public var range: TimeRange
    /// The charted window, inclusive (see `SensorWindow.bounds(for:now:oldest:)`).
    public var start: Timestamp
    public var end: Timestamp
    /// The chart's points: raw readings, or buckets for long ranges.
    public var series: TimeSeries
    /// Over the window; nil when it holds no readings.
    public var statistics: Statistics?
    /// The newest readings of the window, newest first: the table's first pages.
    /// Later pages come through `Command.loadReadings`.
    public var readings: [Reading]
    /// Readings in the window in all; the table asks for more pages while it
    /// has fewer than this.
    public var totalReadings: Int
    /// The device's usual interval in ms, for staleness and gap detection.
    public var usualInterval: Int64?
    /// The window is a zoom (`+`, `-`, `<`, `>`), not the range's own.
    public var zoomed = false

    public init(sensor: Sensor, range: TimeRange, start: Timestamp, end: Timestamp, series: TimeSeries,
                statistics: Statistics?, readings: [Reading], totalReadings: Int? = nil, usualInterval: Int64? = nil) {
        self.sensor = sensor
        self.range = range
        self.start = start
        self.end = end
        self.series = series
        self.statistics = statistics
        self.readings = readings
        self.totalReadings = totalReadings ?? statistics?.count ?? readings.count
        self.usualInterval = usualInterval
    }

    /// The cache's window shown for `range` (`zoomed`: a zoom's window, not the range's own).
    public init(_ window: SensorWindow, range: TimeRange, zoomed: Bool = false) {
        self.init(sensor: window.sensor, range: range, start: window.start, end: window.end, series: window.series,
                  statistics: window.statistics, readings: window.readings, totalReadings: window.totalReadings,
                  usualInterval: window.usualInterval)
        self.zoomed = zoomed
    }
}
