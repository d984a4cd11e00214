/// `GET /sensors/<id>/usage`: a sensor's usage per calendar interval of a zone.
public struct UsageReport: Sendable, Hashable, JSONWritable {
    public var sensor: String
    public var interval: UsageInterval
    /// The zone's name (`UTC` when none was asked for).
    public var timeZone: String
    /// A counter's units, or a gauge's with `h` appended (W → Wh).
    public var units: String
    public var usage: [UsageBucket]

    public init(sensor: String, interval: UsageInterval, timeZone: String, units: String, usage: [UsageBucket]) {
        self.sensor = sensor
        self.interval = interval
        self.timeZone = timeZone
        self.units = units
        self.usage = usage
    }

    /// The whole range's usage.
    public var total: Double { usage.reduce(0) { $0 + $1.value } }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("sensor")
        writer.string(sensor)
        writer.key("interval")
        writer.string(interval.rawValue)
        writer.key("tz")
        writer.string(timeZone)
        writer.key("units")
        writer.string(units)
        writer.key("usage")
        writer.beginArray()
        for bucket in usage { bucket.write(to: &writer) }
        writer.endArray()
        writer.endObject()
    }

    public init(json: JSONValue) throws(WireFormatError) {
        guard let sensor = json["sensor"]?.stringValue,
              let interval = json["interval"]?.stringValue.flatMap(UsageInterval.init(rawValue:)),
              let timeZone = json["tz"]?.stringValue, let units = json["units"]?.stringValue,
              let array = json["usage"]?.arrayValue else {
            throw WireFormatError("malformed usage")
        }
        var usage: [UsageBucket] = []
        for element in array { usage.append(try UsageBucket(json: element)) }
        self.init(sensor: sensor, interval: interval, timeZone: timeZone, units: units, usage: usage)
    }
}

/// One interval's usage: where it starts (UTC), how much, from how many readings,
/// and whether the interval has ended.
public struct UsageBucket: Sendable, Hashable, JSONWritable {
    public var start: Timestamp
    public var value: Double
    public var count: Int
    public var complete: Bool

    public init(start: Timestamp, value: Double, count: Int, complete: Bool) {
        self.start = start
        self.value = value
        self.count = count
        self.complete = complete
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("start")
        writer.timestamp(start)
        writer.key("value")
        writer.number(value)
        writer.key("count")
        writer.int(count)
        writer.key("complete")
        writer.bool(complete)
        writer.endObject()
    }

    public init(json: JSONValue) throws(WireFormatError) {
        guard let start = json["start"]?.stringValue.flatMap(Timestamp.init(rfc3339:)),
              let value = json["value"]?.doubleValue, let count = json["count"]?.intValue,
              let complete = json["complete"]?.boolValue else {
            throw WireFormatError("malformed usage interval")
        }
        self.init(start: start, value: value, count: count, complete: complete)
    }
}
