/// Count, sum, min and max of some readings: what a bucket reports, and what
/// combines from parts (minutes, hours) into the aggregate of their union.
/// The server's rollup rows; `SpanAggregate` adds a span's start and when its
/// extremes were.
/// Only the sum can differ from a single pass over the readings, in its last
/// bits, because doubles are added in another order. Inlinable: the write
/// path adds every reading to one.
public struct Aggregate: Sendable, Hashable {
    public var count: Int
    public var sum: Double
    public var min: Double
    public var max: Double

    /// No readings; merging it changes nothing.
    public static let empty = Aggregate(count: 0, sum: 0, min: .infinity, max: -.infinity)

    @inlinable
    public init(count: Int, sum: Double, min: Double, max: Double) {
        self.count = count
        self.sum = sum
        self.min = min
        self.max = max
    }

    @inlinable
    public init(_ value: Double) {
        self.init(count: 1, sum: value, min: value, max: value)
    }

    @inlinable
    public var isEmpty: Bool { count == 0 }

    @inlinable
    public var mean: Double { sum / Double(Swift.max(1, count)) }

    @inlinable
    public mutating func add(_ value: Double) {
        count += 1
        sum += value
        min = Swift.min(min, value)
        max = Swift.max(max, value)
    }

    @inlinable
    public mutating func merge(_ other: Aggregate) {
        count += other.count
        sum += other.sum
        min = Swift.min(min, other.min)
        max = Swift.max(max, other.max)
    }
}
