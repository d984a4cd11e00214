/// The JSON body an alert's webhook receives (docs/design.md, "Alerts"):
/// `{"alert":{"id","name"},"sensor":{"id","code","name","units","kind"},"state",
/// "condition","threshold","value","at","message"}`; a `usage_above` rule's
/// adds `"interval"`, `"tz"` and `"units"` (the usage's, which the threshold
/// and value are in) after `threshold`. ntfy's plain-text form is derived
/// from it at sending.
public struct AlertNotification: Sendable {
    /// What a receiver is told of the rule's sensor.
    public struct SensorInfo: Sendable {
        public var id: Int64
        public var code: String
        public var name: String
        public var units: String
        public var kind: SensorKind

        public init(id: Int64, code: String, name: String, units: String, kind: SensorKind = .gauge) {
            self.id = id
            self.code = code
            self.name = name
            self.units = units
            self.kind = kind
        }
    }

    public var ruleID: Int64
    public var ruleName: String
    public var sensor: SensorInfo
    /// `firing` (a reminder too) or `resolved`.
    public var state: String
    public var condition: String
    public var threshold: Double?
    /// A `usage_above` rule's calendar and the usage's units; nil for the others.
    public var usage: (interval: String, timeZone: String, units: String)?
    public var value: Double?
    public var at: Timestamp
    /// One line for a person.
    public var message: String

    public init(ruleID: Int64, ruleName: String, sensor: SensorInfo, state: String, condition: String,
                threshold: Double?, usage: (interval: String, timeZone: String, units: String)? = nil,
                value: Double?, at: Timestamp, message: String) {
        self.ruleID = ruleID
        self.ruleName = ruleName
        self.sensor = sensor
        self.state = state
        self.condition = condition
        self.threshold = threshold
        self.usage = usage
        self.value = value
        self.at = at
        self.message = message
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("alert")
        writer.beginObject()
        writer.key("id")
        writer.int(ruleID)
        writer.key("name")
        writer.string(ruleName)
        writer.endObject()
        writer.key("sensor")
        writer.beginObject()
        Sensor.writeIdentity(id: sensor.id, code: sensor.code, name: sensor.name, units: sensor.units, to: &writer)
        writer.key("kind")
        writer.string(sensor.kind.rawValue)
        writer.endObject()
        writer.key("state")
        writer.string(state)
        writer.key("condition")
        writer.string(condition)
        writer.key("threshold")
        if let threshold { writer.number(threshold) } else { writer.null() }
        if let usage {
            writer.key("interval")
            writer.string(usage.interval)
            writer.key("tz")
            writer.string(usage.timeZone)
            writer.key("units")
            writer.string(usage.units)
        }
        writer.key("value")
        if let value { writer.number(value) } else { writer.null() }
        writer.key("at")
        writer.timestamp(at)
        writer.key("message")
        writer.string(message)
        writer.endObject()
    }
}

extension AlertNotification: JSONWritable {}
