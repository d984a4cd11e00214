import SenseiModels

/// Everything the detail screen shows for one sensor and range, filled by the
/// runtime from the cache in answer to `Command.loadDetail`.
public struct DetailData: Hashable, Sendable {
    public var sensor: Sensor
    public var range: TimeRange
    /// The charted window, inclusive (see `window(for:now:oldest:)`).
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

    /// The window a range shows: the span ending `now`; for `.all`, from the
    /// oldest reading (or a day back when there is none) to `now`.
    public static func window(for range: TimeRange, now: Timestamp, oldest: Timestamp?) -> (start: Timestamp, end: Timestamp) {
        if let span = range.milliseconds { return (now.adding(milliseconds: -span), now) }
        let start = min(oldest ?? now.adding(milliseconds: -86_400_000), now.adding(milliseconds: -60_000))
        return (start, now)
    }
}

/// Summary figures of a window of readings.
public struct Statistics: Hashable, Sendable {
    public var count: Int
    /// The lowest reading and when it was.
    public var min: Reading
    /// The highest reading and when it was.
    public var max: Reading
    public var mean: Double
    public var oldest: Timestamp
    public var newest: Timestamp

    public init(count: Int, min: Reading, max: Reading, mean: Double, oldest: Timestamp, newest: Timestamp) {
        self.count = count
        self.min = min
        self.max = max
        self.mean = mean
        self.oldest = oldest
        self.newest = newest
    }

    /// Computed from a series over [start, end] in one pass (for buckets, the
    /// times of min and max are their bucket's start); nil when it is empty.
    /// The cache may instead fill the figures from SQL.
    public init?(series: TimeSeries, start: Timestamp, end: Timestamp) {
        let low = series.lowerBound(start.milliseconds), high = series.upperBound(end.milliseconds)
        guard high > low else { return nil }
        let lows = series.minimums ?? series.values, highs = series.maximums ?? series.values
        var minIndex = low, maxIndex = low, count = 0, sum = 0.0
        for index in low..<high {
            if lows[index] < lows[minIndex] { minIndex = index }
            if highs[index] > highs[maxIndex] { maxIndex = index }
            let weight = series.counts.map { Swift.max(1, $0[index]) } ?? 1
            count += weight
            sum += series.values[index] * Double(weight)
        }
        self.init(count: count,
                  min: Reading(timestamp: Timestamp(milliseconds: series.timestamps[minIndex]), value: lows[minIndex]),
                  max: Reading(timestamp: Timestamp(milliseconds: series.timestamps[maxIndex]), value: highs[maxIndex]),
                  mean: sum / Double(count),
                  oldest: Timestamp(milliseconds: series.timestamps[low]),
                  newest: Timestamp(milliseconds: series.timestamps[high - 1]))
    }
}
