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
    /// `above`, `below`, `silent` or `usage_above`.
    public var condition: String
    /// nil for `silent`.
    public var threshold: Double?
    /// A `usage_above` rule's interval (`hour`, `day`, `week`, `month`) and zone; nil for the others.
    public var interval: String?
    public var timeZone: String?
    /// The units of a `usage_above` rule's usage, which its threshold is in.
    public var units: String?
    public var state: State
    /// When the rule entered its state.
    public var since: Timestamp
    /// The reading that moved it there; nil for a silence or a new rule.
    public var value: Double?

    public init(id: Int64, name: String, sensor: String, condition: String, threshold: Double?,
                interval: String? = nil, timeZone: String? = nil, units: String? = nil, state: State, since: Timestamp, value: Double?) {
        self.id = id
        self.name = name
        self.sensor = sensor
        self.condition = condition
        self.threshold = threshold
        self.interval = interval
        self.timeZone = timeZone
        self.units = units
        self.state = state
        self.since = since
        self.value = value
    }

    public init(json: JSONValue) throws(WireFormatError) {
        let wire = try WireAlertRule(json: json)
        guard let state = State(rawValue: wire.state) else { throw WireFormatError("malformed alert rule") }
        self.init(id: wire.id, name: wire.name, sensor: wire.sensor, condition: wire.condition,
                  threshold: wire.threshold, interval: wire.interval, timeZone: wire.timeZone, units: wire.units, state: state,
                  since: wire.since, value: wire.value)
    }

    /// The rule in its wire form, without the settings the dashboard never keeps.
    package var wire: WireAlertRule {
        WireAlertRule(id: id, name: name, sensor: sensor, condition: condition, threshold: threshold,
                      interval: interval, timeZone: timeZone, units: units, state: state.rawValue, since: since, value: value)
    }

    public func write(to writer: inout JSONWriter) {
        wire.write(WireAlertRule.Key.status, to: &writer)
    }
}

extension AlertStatus: JSONWritable {}

extension [AlertStatus] {
    /// The codes of the sensors with a firing rule: the list's `!` marks.
    public var firingSensors: Set<String> { Set(filter { $0.state == .firing }.map(\.sensor)) }
}
