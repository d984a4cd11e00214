/// An alert rule as the wire carries it: `GET /alerts` and the live stream's
/// `event: alert` (the server), the dashboard's cache and `sensei alerts
/// --json` (without the notify settings, which may hold credentials), and
/// `sensei watch --json` lines. Each writes a selection of `Key`s, in the
/// order it lists them; the keys and their values are written here only.
public struct WireAlertRule: Sendable {
    public enum Key: Sendable, CaseIterable {
        case id, name, sensor, condition, threshold
        /// `interval`, `tz` and `units`: a `usage_above` rule's calendar and
        /// the units of its usage (its threshold's); left out for the others.
        case interval, timeZone, units
        /// `for`, `hysteresis`, `repeat` and `notify`: the rule's settings.
        case forSeconds, hysteresis, repeatSeconds, notify
        case state, since, value

        /// The API's rule object, in its order.
        public static let api: [Key] = allCases
        /// What the dashboard keeps of a rule: all but the settings.
        public static let status: [Key] = [.id, .name, .sensor, .condition, .threshold, .interval, .timeZone, .units, .state, .since, .value]
    }

    /// The rule's settings, which only the server has.
    public struct Settings: Sendable {
        public var forSeconds: Int
        public var hysteresis: Double
        public var repeatSeconds: Int?
        public var notify: [String]

        public init(forSeconds: Int, hysteresis: Double, repeatSeconds: Int?, notify: [String]) {
            self.forSeconds = forSeconds
            self.hysteresis = hysteresis
            self.repeatSeconds = repeatSeconds
            self.notify = notify
        }
    }

    public var id: Int64
    public var name: String
    /// The sensor's code.
    public var sensor: String
    /// `above`, `below`, `silent` or `usage_above`.
    public var condition: String
    /// nil for `silent`.
    public var threshold: Double?
    /// `hour`, `day`, `week` or `month` for `usage_above`; nil (and left out) for the others.
    public var interval: String?
    /// The zone of a `usage_above` rule's calendar (`UTC` by default); nil for the others.
    public var timeZone: String?
    /// The units of a `usage_above` rule's usage (W → Wh), which its threshold and value are in.
    public var units: String?
    /// nil where the settings are not kept: their keys are then left out.
    public var settings: Settings?
    /// `ok`, `pending` or `firing`.
    public var state: String
    /// When the rule entered its state.
    public var since: Timestamp
    /// The reading that moved it there; nil for a silence or a new rule.
    public var value: Double?

    public init(id: Int64, name: String, sensor: String, condition: String, threshold: Double?,
                settings: Settings? = nil, interval: String? = nil, timeZone: String? = nil, units: String? = nil,
                state: String, since: Timestamp, value: Double?) {
        self.id = id
        self.name = name
        self.sensor = sensor
        self.condition = condition
        self.threshold = threshold
        self.interval = interval
        self.timeZone = timeZone
        self.units = units
        self.settings = settings
        self.state = state
        self.since = since
        self.value = value
    }

    /// `keys` as one object.
    public func write(_ keys: [Key], to writer: inout JSONWriter) {
        writer.beginObject()
        writeFields(keys, to: &writer)
        writer.endObject()
    }

    /// `keys` without the braces, for a line that adds keys of its own.
    public func writeFields(_ keys: [Key], to writer: inout JSONWriter) {
        for key in keys { write(key, to: &writer) }
    }

    private func write(_ key: Key, to writer: inout JSONWriter) {
        switch key {
        case .id:
            writer.key("id")
            writer.int(id)
        case .name:
            writer.key("name")
            writer.string(name)
        case .sensor:
            writer.key("sensor")
            writer.string(sensor)
        case .condition:
            writer.key("condition")
            writer.string(condition)
        case .threshold:
            writer.key("threshold")
            if let threshold { writer.number(threshold) } else { writer.null() }
        case .interval:
            guard let interval else { return }
            writer.key("interval")
            writer.string(interval)
        case .timeZone:
            guard let timeZone else { return }
            writer.key("tz")
            writer.string(timeZone)
        case .units:
            guard let units else { return }
            writer.key("units")
            writer.string(units)
        case .forSeconds:
            guard let settings else { return }
            writer.key("for")
            writer.int(settings.forSeconds)
        case .hysteresis:
            guard let settings else { return }
            writer.key("hysteresis")
            writer.number(settings.hysteresis)
        case .repeatSeconds:
            guard let settings else { return }
            writer.key("repeat")
            if let repeatSeconds = settings.repeatSeconds { writer.int(repeatSeconds) } else { writer.null() }
        case .notify:
            guard let settings else { return }
            writer.key("notify")
            writer.beginArray()
            for url in settings.notify { writer.string(url) }
            writer.endArray()
        case .state:
            writer.key("state")
            writer.string(state)
        case .since:
            writer.key("since")
            writer.timestamp(since)
        case .value:
            writer.key("value")
            if let value { writer.number(value) } else { writer.null() }
        }
    }
}

extension WireAlertRule {
    /// Reads what every form has (the settings are left to the server's own
    /// decoding of a rule a person wrote, `AlertRuleDecoding`).
    public init(json: JSONValue) throws(WireFormatError) {
        guard let id = json["id"]?.intValue, let name = json["name"]?.stringValue,
              let sensor = json["sensor"]?.stringValue, let condition = json["condition"]?.stringValue,
              let state = json["state"]?.stringValue,
              let since = json["since"]?.stringValue.flatMap(Timestamp.init(rfc3339:)) else {
            throw WireFormatError("malformed alert rule")
        }
        self.init(id: Int64(id), name: name, sensor: sensor, condition: condition,
                  threshold: json["threshold"]?.doubleValue, interval: json["interval"]?.stringValue,
                  timeZone: json["tz"]?.stringValue, units: json["units"]?.stringValue, state: state, since: since,
                  value: json["value"]?.doubleValue)
    }
}
