/// One stored measurement.
public struct Reading: Sendable, Hashable {
    public var timestamp: Timestamp
    public var value: Double

    public init(timestamp: Timestamp, value: Double) {
        self.timestamp = timestamp
        self.value = value
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writeFields(to: &writer)
        writer.endObject()
    }

    /// `"timestamp","value"` without the braces, for an object that adds
    /// keys of its own (a live-stream reading).
    public func writeFields(to writer: inout JSONWriter) {
        writer.key("timestamp")
        writer.timestamp(timestamp)
        writer.key("value")
        writer.number(value)
    }

    public init(json: JSONValue) throws(WireFormatError) {
        guard let text = json["timestamp"]?.stringValue, let timestamp = Timestamp(rfc3339: text) else {
            throw WireFormatError("reading without a valid timestamp")
        }
        guard let value = json["value"]?.doubleValue else { throw WireFormatError("reading without a value") }
        self.init(timestamp: timestamp, value: value)
    }
}

/// One span of an aggregated range: mean, extremes and count of its readings.
public struct Bucket: Sendable, Hashable {
    /// The start of the span.
    public var timestamp: Timestamp
    public var mean: Double
    public var min: Double
    public var max: Double
    public var count: Int

    public init(timestamp: Timestamp, mean: Double, min: Double, max: Double, count: Int) {
        self.timestamp = timestamp
        self.mean = mean
        self.min = min
        self.max = max
        self.count = count
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("timestamp")
        writer.timestamp(timestamp)
        writer.key("value")
        writer.number(mean)
        writer.key("min")
        writer.number(min)
        writer.key("max")
        writer.number(max)
        writer.key("count")
        writer.int(count)
        writer.endObject()
    }

    public init(json: JSONValue) throws(WireFormatError) {
        guard let text = json["timestamp"]?.stringValue, let timestamp = Timestamp(rfc3339: text),
              let mean = json["value"]?.doubleValue, let min = json["min"]?.doubleValue,
              let max = json["max"]?.doubleValue, let count = json["count"]?.intValue else {
            throw WireFormatError("malformed bucket")
        }
        self.init(timestamp: timestamp, mean: mean, min: min, max: max, count: count)
    }
}

/// A server answer that does not have the documented shape.
public struct WireFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
