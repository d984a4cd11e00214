import GRDB

/// Count, sum, min and max of some readings: what a bucket reports, and what
/// combines from parts (minutes, hours) into the aggregate of their union.
/// Only the sum can differ from a single pass over the readings, in its last
/// bits, because doubles are added in another order.
struct Aggregate: Equatable {
    var count: Int
    var sum: Double
    var min: Double
    var max: Double

    /// No readings; merging it changes nothing.
    static let empty = Aggregate(count: 0, sum: 0, min: .infinity, max: -.infinity)

    init(count: Int, sum: Double, min: Double, max: Double) {
        self.count = count
        self.sum = sum
        self.min = min
        self.max = max
    }

    init(_ value: Double) {
        self.init(count: 1, sum: value, min: value, max: value)
    }

    /// Columns `count`, `sum`, `min` and `max`, as the rollup tables name them.
    init(row: Row) {
        self.init(count: row["count"], sum: row["sum"], min: row["min"], max: row["max"])
    }

    var isEmpty: Bool { count == 0 }

    mutating func add(_ value: Double) {
        count += 1
        sum += value
        min = Swift.min(min, value)
        max = Swift.max(max, value)
    }

    mutating func merge(_ other: Aggregate) {
        count += other.count
        sum += other.sum
        min = Swift.min(min, other.min)
        max = Swift.max(max, other.max)
    }
}
