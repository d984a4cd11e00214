import SenseiClient
import SenseiModels

/// What `sensei watch` prints: a line of text for each reading and each
/// alert transition, time first, or one JSON object a line (`--json`).
extension WatchCommand {
    /// One reading: RFC 3339 time, code, value and units.
    static func line(_ live: LiveReading, units: String) -> String {
        "\(live.reading.timestamp.rfc3339) \(live.code) \(number(live.reading.value))" + (units.isEmpty ? "" : " \(units)")
    }

    /// One alert transition: when the rule entered its state, the sensor,
    /// `alert`, the new state, the rule's name, and the reading that moved it
    /// with the rule's condition:
    /// `2025-01-09T12:01:00Z freezer alert firing: Freezer too warm (-8.5 °C, above -10)`;
    /// a usage rule's value is a usage, in its own units:
    /// `… alert firing: Heat pump (30.4 kWh, usage_above 30 kWh/day)`.
    static func line(_ rule: AlertStatus, units: String) -> String {
        let units = rule.interval == nil ? units : rule.units ?? ""
        var detail: [String] = []
        if let value = rule.value { detail.append(number(value) + (units.isEmpty ? "" : " \(units)")) }
        detail.append(rule.interval != nil ? TextReport.condition(rule)
                      : rule.threshold.map { "\(rule.condition) \(number($0))" } ?? rule.condition)
        return "\(rule.since.rfc3339) \(rule.sensor) alert \(rule.state.rawValue): \(rule.name) ("
            + detail.joined(separator: ", ") + ")"
    }

    /// `{"event":"reading","sensor":…,"id":…,"timestamp":…,"value":…,"units":…}`
    static func jsonLine(_ live: LiveReading, units: String) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("event")
        writer.string("reading")
        live.writeFields(to: &writer)
        writer.key("units")
        writer.string(units)
        writer.endObject()
        return writer.string
    }

    /// `{"event":"alert","id":…,"name":…,"sensor":…,"state":…,"since":…,
    /// "value":…,"units":…,"condition":…,"threshold":…}` (value and threshold
    /// null when the rule has none); a usage rule's `units` are its usage's,
    /// and `interval` and `tz` follow.
    static func jsonLine(_ rule: AlertStatus, units: String) -> String {
        let units = rule.interval == nil ? units : rule.units ?? ""
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("event")
        writer.string("alert")
        let wire = rule.wire
        wire.writeFields([.id, .name, .sensor, .state, .since, .value], to: &writer)
        writer.key("units")
        writer.string(units)
        wire.writeFields([.condition, .threshold, .interval, .timeZone], to: &writer)
        writer.endObject()
        return writer.string
    }

    private static func number(_ value: Double) -> String {
        Format.number(value, significantDigits: 15, maxDecimals: 15)
    }
}
