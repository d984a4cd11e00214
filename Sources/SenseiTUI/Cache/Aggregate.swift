import SenseiModels
import GRDB

/// Count, sum and extremes (with their times) of the readings in a span: what
/// the cache keeps per rollup granule and hands out as chart buckets and
/// statistics. Two aggregates of disjoint spans merge exactly.
struct Aggregate: Equatable {
    /// The span's first millisecond (clamped to the window for edge spans).
    var start: Int64
    var count: Int
    var sum: Double
    var min: Double
    /// The earliest reading holding `min`.
    var minTime: Int64
    var max: Double
    var maxTime: Int64

    init(start: Int64, count: Int, sum: Double, min: Double, minTime: Int64, max: Double, maxTime: Int64) {
        self.start = start
        self.count = count
        self.sum = sum
        self.min = min
        self.minTime = minTime
        self.max = max
        self.maxTime = maxTime
    }

    /// One reading.
    init(time: Int64, value: Double) {
        self.init(start: time, count: 1, sum: value, min: value, minTime: time, max: value, maxTime: time)
    }

    var mean: Double { sum / Double(Swift.max(1, count)) }

    /// Adds a later, disjoint aggregate. On a tie the earlier time is kept.
    mutating func merge(_ other: Aggregate) {
        count += other.count
        sum += other.sum
        if other.min < min { min = other.min; minTime = other.minTime }
        if other.max > max { max = other.max; maxTime = other.maxTime }
    }

    var bucket: Bucket {
        Bucket(timestamp: Timestamp(milliseconds: start), mean: mean, min: min, max: max, count: count)
    }
}

/// Folds time-ordered aggregates into spans of `span` ms aligned on the epoch,
/// each clamped to start no earlier than `floor`. nil `span`: one span.
struct SpanFolder {
    let span: Int64?
    let floor: Int64
    private(set) var spans: [Aggregate] = []
    private var currentKey = Int64.min

    init(span: Int64?, floor: Int64) {
        self.span = span
        self.floor = floor
    }

    mutating func add(_ item: Aggregate) {
        let key = span.map { item.start.alignedDown(to: $0) } ?? floor
        if key == currentKey, !spans.isEmpty {
            spans[spans.count - 1].merge(item)
        } else {
            var first = item
            first.start = Swift.max(key, floor)
            spans.append(first)
            currentKey = key
        }
    }
}

/// Stored as its raw value, the `level` column of the cache's `rollups`.
extension RollupLevel: DatabaseValueConvertible {}
