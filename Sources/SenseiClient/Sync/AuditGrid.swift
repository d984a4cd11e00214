import SenseiModels
/// Equal spans covering a window of time, laid out so that the server's
/// buckets and the cache's rollups cut the window in the same places.
///
/// The server cuts [after, before] into N spans starting at
/// `after + ⌈i × length / N⌉` with `length = before − after`; asked for
/// [start, start + N × span − 1] that is exactly `start + i × span`, and a
/// span ends where the next begins. Spans from a minute up are whole
/// minutes, and from an hour up whole hours (both aligned on the epoch), so
/// the cache adds up a span from its rollups instead of its readings.
struct AuditGrid: Equatable {
    /// The most spans one bucket request may ask for.
    static let maximumSpans = 2_000

    /// The first span's first millisecond (a multiple of `span`).
    let start: Int64
    /// Each span's length in milliseconds.
    let span: Int64
    let count: Int

    /// The grid of the fewest spans, at most `maximumSpans` and each at least
    /// `minimumSpan`, that covers [from, through] (`from <= through`).
    init(from: Int64, through: Int64, minimumSpan: Int64 = 1) {
        var span = Self.tile(max(minimumSpan, (through - from) / Int64(Self.maximumSpans) + 1))
        while true {
            let start = from.alignedDown(to: span)
            let count = (through - start) / span + 1
            if count <= Int64(Self.maximumSpans) {
                self.start = start
                self.span = span
                self.count = Int(count)
                return
            }
            span = Self.tile(span + 1)
        }
    }

    /// The last span's last millisecond.
    var end: Int64 { start + span * Int64(count) - 1 }

    /// The rollup level whose granules tile every span; nil for spans under
    /// the finest granule, which the cache adds up from its readings.
    var level: RollupLevel? { RollupLevel.coarsest(atMost: span) }

    func first(ofSpan index: Int) -> Int64 { start + Int64(index) * span }
    func last(ofSpan index: Int) -> Int64 { first(ofSpan: index) + span - 1 }
    func index(of time: Int64) -> Int { Int((time - start) / span) }

    /// `span` rounded up to whole minutes once it passes a minute, and to
    /// whole hours once it passes an hour.
    private static func tile(_ span: Int64) -> Int64 {
        guard span > RollupLevel.minute.width else { return span }
        let level: RollupLevel = span > RollupLevel.hour.width ? .hour : .minute
        return span.alignedUp(to: level.width)
    }
}
