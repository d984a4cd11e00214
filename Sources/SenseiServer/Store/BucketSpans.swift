import SenseiModels

/// The inclusive range [after, before] cut into `count` equal spans of
/// `(before - after) / count` milliseconds, as docs/design.md ("Readings") says: an hour in 6
/// spans starts them at :00, :10, … :50, as a person reading the chart
/// expects.
///
/// A reading at `ts` falls in span `(ts - after) * count / length` (integer
/// division, `length = before - after`), and a span's first millisecond is
/// `after + ⌈i * length / count⌉`. So span `i` holds exactly the instants
/// from its first millisecond up to, not including, the first of span
/// `i + 1`; a reading exactly at `before` would open span `count`, and
/// counts in the last span instead. A range of one instant is one span.
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
        self.length = before - after
        self.count = Int64(count)
    }

    func span(of ts: Int64) -> Int {
        guard length > 0 else { return 0 }
        return Int(min((ts - after) * count / length, count - 1))
    }

    func start(ofSpan span: Int) -> Int64 {
        after + (Int64(span) * length + count - 1) / count
    }

    /// The rollup levels worth reading, coarsest first: those whose rows are
    /// at most half a span wide, so most rows fall whole inside one span.
    /// Empty for spans under two minutes: those read the readings themselves.
    var rollupLevels: [RollupLevel] {
        RollupLevel.coarsestFirst.filter { $0.width * 2 <= length / count }
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
