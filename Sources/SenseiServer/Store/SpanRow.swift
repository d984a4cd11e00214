import SenseiModels

/// One row of `GET …/aggregates` being gathered (a minute or an hour); times
/// in milliseconds. Both stores build them.
struct SpanRow {
    var start: Int64
    var aggregate: Aggregate
    var minAt: Int64
    var maxAt: Int64

    var wire: SpanAggregate {
        SpanAggregate(start: Timestamp(milliseconds: start), count: aggregate.count, sum: aggregate.sum,
                      min: aggregate.min, minAt: Timestamp(milliseconds: minAt),
                      max: aggregate.max, maxAt: Timestamp(milliseconds: maxAt))
    }

    /// Adds a later part of the same span; on a tie the earlier time stays.
    mutating func merge(_ other: SpanRow) {
        if other.aggregate.min < aggregate.min { minAt = other.minAt }
        if other.aggregate.max > aggregate.max { maxAt = other.maxAt }
        aggregate.merge(other.aggregate)
    }
}

extension [SpanRow] {
    /// Adds a reading, later than every one before, to the row of `level`
    /// holding it; its extremes are placed at the reading's minute.
    mutating func fold(_ ts: Int64, _ value: Double, level: RollupLevel) {
        let minute = RollupLevel.minute.start(of: ts)
        let part = SpanRow(start: level.start(of: ts), aggregate: Aggregate(value), minAt: minute, maxAt: minute)
        if let last, last.start == part.start {
            self[count - 1].merge(part)
        } else {
            append(part)
        }
    }
}
