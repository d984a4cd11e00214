import SenseiModels

/// A list row's last 24 hours and usual interval, read from the cache for
/// the rows on screen only (the dashboard's `Command.loadRecent`), not for every sensor.
public struct RecentSeries: Hashable, Sendable {
    public var series: TimeSeries
    public var usualInterval: Int64?
    /// The `now` it was read for: read again once the minute turns.
    public var asOf: Timestamp

    public init(series: TimeSeries, usualInterval: Int64?, asOf: Timestamp) {
        self.series = series
        self.usualInterval = usualInterval
        self.asOf = asOf
    }
}
