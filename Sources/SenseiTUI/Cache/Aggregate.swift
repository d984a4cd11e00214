import SenseiModels

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

/// Rollup granularities: level 0 a minute, level 1 an hour, aligned on the
/// epoch: the server's aggregates (`GET /sensors/<id>/aggregates`), so that
/// history beyond the raw window is kept as the server sends it. Inside the
/// raw window the cache computes the same rows from its readings.
enum RollupLevel {
    static let minute = 0
    static let hour = 1
    static let base: Int64 = 60_000
    static let count = 2

    static func granule(_ level: Int) -> Int64 { level == 0 ? 60_000 : 3_600_000 }

    /// The level's name in the server's API.
    static func name(_ level: Int) -> String { level == 0 ? "minute" : "hour" }

    /// The coarsest level whose granule is at most `span`; nil when even the
    /// finest is coarser (short windows read raw readings).
    static func coarsest(atMost span: Int64) -> Int? {
        (0..<count).last { granule($0) <= span }
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
        let key = span.map { Self.alignDown(item.start, to: $0) } ?? floor
        if key == currentKey, !spans.isEmpty {
            spans[spans.count - 1].merge(item)
        } else {
            var first = item
            first.start = Swift.max(key, floor)
            spans.append(first)
            currentKey = key
        }
    }

    /// The largest multiple of `step` ≤ `time` (also before 1970).
    static func alignDown(_ time: Int64, to step: Int64) -> Int64 {
        time.alignedDown(to: step)
    }

    static func alignUp(_ time: Int64, to step: Int64) -> Int64 {
        let down = alignDown(time, to: step)
        return down == time ? time : down + step
    }
}
