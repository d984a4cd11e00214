/// A sensor's readings over one minute or hour, as the server's rollups keep
/// them (`GET /sensors/<id>/aggregates`): count, sum and extremes, with the
/// minute in which each extreme first occurred. Sum, not mean, so that spans
/// add up exactly into longer ones.
public struct SpanAggregate: Sendable, Hashable {
    /// The span's first millisecond (a whole minute or hour, UTC).
    public var start: Timestamp
    public var count: Int
    public var sum: Double
    public var min: Double
    /// The first minute of the span holding `min` (its first millisecond).
    public var minAt: Timestamp
    public var max: Double
    public var maxAt: Timestamp

    public init(start: Timestamp, count: Int, sum: Double, min: Double, minAt: Timestamp, max: Double,
                maxAt: Timestamp) {
        self.start = start
        self.count = count
        self.sum = sum
        self.min = min
        self.minAt = minAt
        self.max = max
        self.maxAt = maxAt
    }

    /// One reading.
    public init(time: Int64, value: Double) {
        let at = Timestamp(milliseconds: time)
        self.init(start: at, count: 1, sum: value, min: value, minAt: at, max: value, maxAt: at)
    }

    public var mean: Double { sum / Double(Swift.max(1, count)) }

    /// Adds a later, disjoint span. On a tie the earlier time is kept.
    public mutating func merge(_ other: SpanAggregate) {
        count += other.count
        sum += other.sum
        if other.min < min { min = other.min; minAt = other.minAt }
        if other.max > max { max = other.max; maxAt = other.maxAt }
    }

    public var bucket: Bucket {
        Bucket(timestamp: start, mean: mean, min: min, max: max, count: count)
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("start")
        writer.timestamp(start)
        writer.key("count")
        writer.int(count)
        writer.key("sum")
        writer.number(sum)
        writer.key("min")
        writer.number(min)
        writer.key("minAt")
        writer.timestamp(minAt)
        writer.key("max")
        writer.number(max)
        writer.key("maxAt")
        writer.timestamp(maxAt)
        writer.endObject()
    }

    public init(json: JSONValue) throws(WireFormatError) {
        guard let start = json["start"]?.stringValue.flatMap(Timestamp.init(rfc3339:)),
              let count = json["count"]?.intValue, let sum = json["sum"]?.doubleValue,
              let min = json["min"]?.doubleValue, let max = json["max"]?.doubleValue,
              let minAt = json["minAt"]?.stringValue.flatMap(Timestamp.init(rfc3339:)),
              let maxAt = json["maxAt"]?.stringValue.flatMap(Timestamp.init(rfc3339:)) else {
            throw WireFormatError("malformed aggregate")
        }
        self.init(start: start, count: count, sum: sum, min: min, minAt: minAt, max: max, maxAt: maxAt)
    }
}

extension SpanAggregate: JSONWritable {}
