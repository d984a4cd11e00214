import GRDB
import SenseiModels

/// Folds time-ordered aggregates (readings are spans of one) into spans of `span` ms aligned on the epoch,
/// each clamped to start no earlier than `floor`. nil `span`: one span.
struct SpanFolder {
    let span: Int64?
    let floor: Int64
    private(set) var spans: [SpanAggregate] = []
    private var currentKey = Int64.min

    init(span: Int64?, floor: Int64) {
        self.span = span
        self.floor = floor
    }

    mutating func add(_ item: SpanAggregate) {
        let key = span.map { item.start.milliseconds.alignedDown(to: $0) } ?? floor
        if key == currentKey, !spans.isEmpty {
            spans[spans.count - 1].merge(item)
        } else {
            var first = item
            first.start = Timestamp(milliseconds: Swift.max(key, floor))
            spans.append(first)
            currentKey = key
        }
    }
}

/// Stored as its raw value, the `level` column of the cache's `rollups`.
extension RollupLevel: DatabaseValueConvertible {}
