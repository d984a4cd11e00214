import SenseiClient
import SenseiModels

/// Everything the detail screen shows for one sensor and range, filled by the
/// runtime from the cache in answer to `Command.loadDetail`: the cache's
/// window (`data.series`, `data.readings`, … read through to it) and what
/// the screen adds. Later table pages come through `Command.loadReadings`;
/// the table asks for more while it has fewer than `totalReadings`.
@dynamicMemberLookup
public struct DetailData: Hashable, Sendable {
    public var window: SensorWindow
    public var range: TimeRange
    /// The window is a zoom (`+`, `-`, `<`, `>`), not the range's own.
    public var zoomed = false

    public init(sensor: Sensor, range: TimeRange, start: Timestamp, end: Timestamp, series: TimeSeries,
                statistics: Statistics?, readings: [Reading], totalReadings: Int? = nil, usualInterval: Int64? = nil) {
        self.init(SensorWindow(sensor: sensor, start: start, end: end, series: series, statistics: statistics,
                               readings: readings, totalReadings: totalReadings ?? statistics?.count ?? readings.count,
                               usualInterval: usualInterval),
                  range: range)
    }

    /// The cache's window shown for `range` (`zoomed`: a zoom's window, not the range's own).
    public init(_ window: SensorWindow, range: TimeRange, zoomed: Bool = false) {
        self.window = window
        self.range = range
        self.zoomed = zoomed
    }

    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<SensorWindow, Value>) -> Value {
        get { window[keyPath: keyPath] }
        set { window[keyPath: keyPath] = newValue }
    }
}
