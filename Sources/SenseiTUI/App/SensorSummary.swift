import SenseiClient
import SenseiModels

/// One list row's data, filled by the runtime from the cache.
public struct SensorSummary: Hashable, Sendable {
    public var sensor: Sensor {
        didSet { searchKey = SearchKey(sensor) }
    }
    /// What the `/` filter looks in, made once per sensor.
    public private(set) var searchKey: SearchKey
    /// The last 24 hours for the sparkline: raw readings or buckets, oldest first.
    public var recent: TimeSeries
    /// The device's usual interval between readings in ms (the median spacing
    /// of its recent readings, see `TimeSeries.medianSpacing(of:)`); nil while
    /// it has fewer than two.
    public var usualInterval: Int64?

    public init(sensor: Sensor, recent: TimeSeries = TimeSeries(), usualInterval: Int64? = nil) {
        self.sensor = sensor
        searchKey = SearchKey(sensor)
        self.recent = recent
        self.usualInterval = usualInterval
    }

    public var id: Int64 { sensor.id }

    /// A sensor is stale after three of its usual intervals without a reading.
    public static let staleFactor: Int64 = 3

    /// No reading for more than `staleFactor` × the usual interval. A sensor
    /// whose interval is unknown (fewer than two readings) is never stale.
    public func isStale(now: Timestamp) -> Bool {
        isStale(now: now, usualInterval: usualInterval)
    }

    /// `isStale(now:)` with the interval read apart from the list (`RecentSeries`).
    public func isStale(now: Timestamp, usualInterval: Int64?) -> Bool {
        guard let latest = sensor.latest, let interval = usualInterval, interval > 0 else { return false }
        return now.milliseconds - latest.timestamp.milliseconds > Self.staleFactor * interval
    }
}
