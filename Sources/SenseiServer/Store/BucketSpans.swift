import SenseiModels

/// The inclusive range [after, before] cut into `count` equal spans.
///
/// The range is `before - after + 1` milliseconds long; a reading at `ts`
/// falls in span `(ts - after) * count / length` (integer division), and a
/// span's first millisecond is `after + ⌈i * length / count⌉`. So span `i`
/// holds exactly the instants from its first millisecond up to, not
/// including, the first of span `i + 1`.
struct BucketSpans {
    let after: Int64
    let before: Int64
    let length: Int64
    let count: Int64

    /// `after <= before` and `count >= 1`. The products below stay far from
    /// overflow: a length within `Timestamp.range` times 2,000 spans is < 2^63.
    init(after: Int64, before: Int64, count: Int) {
        self.after = after
        self.before = before
        self.length = before - after + 1
        self.count = Int64(count)
    }

    func span(of ts: Int64) -> Int {
        Int((ts - after) * count / length)
    }

    func start(ofSpan span: Int) -> Int64 {
        after + (Int64(span) * length + count - 1) / count
    }

    /// The rollup levels worth reading, coarsest first: those whose rows are
    /// at most half a span wide, so most rows fall whole inside one span.
    /// Empty for spans under two minutes: those read the readings themselves.
    var rollupLevels: [RollupLevel] {
        RollupLevel.allCases.filter { $0.width * 2 <= length / count }
    }

    /// One bucket per non-empty span, oldest first.
    func buckets(from aggregates: [Aggregate]) -> [Bucket] {
        aggregates.indices.compactMap { span in
            let aggregate = aggregates[span]
            guard !aggregate.isEmpty else { return nil }
            return Bucket(timestamp: Timestamp(milliseconds: start(ofSpan: span)),
                          mean: aggregate.sum / Double(aggregate.count),
                          min: aggregate.min, max: aggregate.max, count: aggregate.count)
        }
    }
}
