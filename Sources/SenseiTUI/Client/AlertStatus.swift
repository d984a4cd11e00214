import SenseiModels

/// An alert rule as the dashboard shows it (`GET /alerts`): what it watches
/// and where it stands. The rule's notify URLs are left out: they may hold
/// credentials, and the dashboard never needs them.
public struct AlertStatus: Sendable, Hashable {
    public enum State: String, Sendable, Hashable {
        case ok, pending, firing
    }

    public var id: Int64
    public var name: String
    /// The sensor's code.
    public var sensor: String
    /// `above`, `below` or `silent`.
    public var condition: String
    /// nil for `silent`.
    public var threshold: Double?
    public var state: State
    /// When the rule entered its state.
    public var since: Timestamp
    /// The reading that moved it there; nil for a silence or a new rule.
    public var value: Double?

    public init(id: Int64, name: String, sensor: String, condition: String, threshold: Double?,
                state: State, since: Timestamp, value: Double?) {
        self.id = id
        self.name = name
        self.sensor = sensor
        self.condition = condition
        self.threshold = threshold
        self.state = state
        self.since = since
        self.value = value
    }

    public init(json: JSONValue) throws(WireFormatError) {
        guard let id = json["id"]?.intValue, let name = json["name"]?.stringValue,
              let sensor = json["sensor"]?.stringValue, let condition = json["condition"]?.stringValue,
              let state = json["state"]?.stringValue.flatMap(State.init(rawValue:)),
              let since = json["since"]?.stringValue.flatMap(Timestamp.init(rfc3339:)) else {
            throw WireFormatError("malformed alert rule")
        }
        self.init(id: Int64(id), name: name, sensor: sensor, condition: condition,
                  threshold: json["threshold"]?.doubleValue, state: state, since: since,
                  value: json["value"]?.doubleValue)
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("id")
        writer.int(id)
        writer.key("name")
        writer.string(name)
        writer.key("sensor")
        writer.string(sensor)
        writer.key("condition")
        writer.string(condition)
        writer.key("threshold")
        if let threshold { writer.number(threshold) } else { writer.null() }
        writer.key("state")
        writer.string(state.rawValue)
        writer.key("since")
        writer.timestamp(since)
        writer.key("value")
        if let value { writer.number(value) } else { writer.null() }
        writer.endObject()
    }
}

extension AlertStatus: JSONWritable {}

extension [AlertStatus] {
    /// The codes of the sensors with a firing rule: the list's `!` marks.
    public var firingSensors: Set<String> { Set(filter { $0.state == .firing }.map(\.sensor)) }
}
