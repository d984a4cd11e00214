import SenseiModels

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
