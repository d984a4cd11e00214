import SenseiModels

/// Readings of one sensor as parallel arrays, oldest first: what the cache
/// hands the chart. Struct-of-arrays so a million points are two flat buffers
/// the reduction walks without touching anything else.
///
/// Either raw readings (`timestamps`, `values`) or server buckets, which add
/// each span's `minimums`, `maximums` and reading `counts` (`values` then
/// holds the means and `timestamps` the span starts).
public struct TimeSeries: Hashable, Sendable {
    /// Milliseconds since the epoch, UTC, ascending and unique.
    public private(set) var timestamps: [Int64]
    public private(set) var values: [Double]
    public private(set) var minimums: [Double]?
    public private(set) var maximums: [Double]?
    public private(set) var counts: [Int]?

    public init() {
        timestamps = []
        values = []
    }

    /// Raw readings; `timestamps` must be ascending.
    public init(timestamps: [Int64], values: [Double]) {
        precondition(timestamps.count == values.count, "one value per timestamp")
        self.timestamps = timestamps
        self.values = values
    }

    public init(readings: [Reading]) {
        self.init(timestamps: readings.map(\.timestamp.milliseconds), values: readings.map(\.value))
    }

    /// Server buckets (`...&buckets=N`), oldest first.
    public init(buckets: [Bucket]) {
        timestamps = buckets.map(\.timestamp.milliseconds)
        values = buckets.map(\.mean)
        minimums = buckets.map(\.min)
        maximums = buckets.map(\.max)
        counts = buckets.map(\.count)
    }

    public var count: Int { timestamps.count }
    public var isEmpty: Bool { timestamps.isEmpty }
    /// Whether the points are buckets (mean, min, max, count) rather than readings.
    public var isAggregated: Bool { counts != nil }

    public mutating func reserveCapacity(_ capacity: Int) {
        timestamps.reserveCapacity(capacity)
        values.reserveCapacity(capacity)
    }

    /// Appends a raw reading newer than the last one.
    public mutating func append(timestamp: Int64, value: Double) {
        precondition(!isAggregated, "raw readings cannot join a bucket series")
        timestamps.append(timestamp)
        values.append(value)
    }

    /// Appends a bucket later than the last one.
    public mutating func append(_ bucket: Bucket) {
        precondition(isAggregated || isEmpty, "buckets cannot join a raw series")
        timestamps.append(bucket.timestamp.milliseconds)
        values.append(bucket.mean)
        if counts == nil {
            minimums = []
            maximums = []
            counts = []
        }
        minimums!.append(bucket.min)
        maximums!.append(bucket.max)
        counts!.append(bucket.count)
    }

    /// The point at `index` as a reading (a bucket's mean for aggregated series).
    public func reading(at index: Int) -> Reading {
        Reading(timestamp: Timestamp(milliseconds: timestamps[index]), value: values[index])
    }

    /// The first index whose timestamp is ≥ `time` (`count` if none).
    public func lowerBound(_ time: Int64) -> Int {
        var low = 0, high = timestamps.count
        while low < high {
            let middle = (low + high) / 2
            if timestamps[middle] < time { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The first index whose timestamp is > `time` (`count` if none).
    public func upperBound(_ time: Int64) -> Int {
        var low = 0, high = timestamps.count
        while low < high {
            let middle = (low + high) / 2
            if timestamps[middle] <= time { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The index of the point closest in time to `time` (the earlier on a tie).
    public func nearestIndex(to time: Int64) -> Int? {
        guard !isEmpty else { return nil }
        let after = lowerBound(time)
        if after == 0 { return 0 }
        if after == count { return count - 1 }
        return time - timestamps[after - 1] <= timestamps[after] - time ? after - 1 : after
    }

    /// The median gap between consecutive points in `indices`, from at most
    /// `samples` evenly spread gaps so it stays cheap on a million points.
    /// nil with fewer than two points.
    public func medianSpacing(in indices: Range<Int>? = nil, samples: Int = 1024) -> Int64? {
        Self.medianSpacing(of: timestamps, in: indices ?? 0..<timestamps.count, samples: samples)
    }

    /// The usual interval of a device: the median gap between its ascending
    /// `timestamps` (e.g. its last hundred readings). nil with fewer than two.
    public static func medianSpacing(of timestamps: [Int64], in indices: Range<Int>? = nil,
                                     samples: Int = 1024) -> Int64? {
        let range = (indices ?? 0..<timestamps.count).clamped(to: 0..<timestamps.count)
        let gaps = range.count - 1
        guard gaps >= 1 else { return nil }
        let stride = max(1, gaps / max(1, samples))
        var sample: [Int64] = []
        sample.reserveCapacity(gaps / stride + 1)
        var index = range.lowerBound
        while index + 1 < range.upperBound {
            sample.append(timestamps[index + 1] - timestamps[index])
            index += stride
        }
        sample.sort()
        return sample[sample.count / 2]
    }
}
