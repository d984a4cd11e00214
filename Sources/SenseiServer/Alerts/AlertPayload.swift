import SenseiModels

/// The notification a transition sends: the webhook's JSON body
/// (`AlertNotification`, docs/design.md "Alerts"), built once, when the
/// transition is stored, and kept in the outbox as it is; ntfy's plain-text
/// form is derived from it at sending.
struct AlertPayload {
    /// What a notification needs to know of the rule's sensor.
    typealias SensorInfo = AlertNotification.SensorInfo

    /// The body for a stored transition (what `AlertStore.saveAlertChanges`
    /// reads in the transaction that queues it).
    @Sendable static func json(_ transition: AlertTransition) -> String {
        let sensor = transition.sensor
        return json(ruleID: transition.alert.id, rule: transition.alert.rule,
                    sensor: SensorInfo(id: sensor.id, code: sensor.code, name: sensor.name, units: sensor.units,
                                       kind: sensor.kind),
                    usageUnits: sensor.kind.usageUnits(forSensorUnits: sensor.units),
                    notice: transition.notice, status: transition.alert.status, at: transition.at)
    }

    /// `usageUnits`: the units of the sensor's usage (W → Wh), which a
    /// `usage_above` rule's threshold and value are in.
    static func json(ruleID: Int64, rule: AlertRule, sensor: SensorInfo, usageUnits: String, notice: AlertJudge.Notice,
                     status: AlertStatus, at now: Int64) -> String {
        let usage = rule.interval.map { (interval: $0.rawValue, timeZone: rule.timeZone ?? "UTC", units: usageUnits) }
        let notification = AlertNotification(
            ruleID: ruleID, ruleName: rule.name, sensor: sensor, state: notice == .resolved ? "resolved" : "firing",
            condition: rule.condition.rawValue, threshold: rule.threshold, usage: usage, value: status.value,
            at: Timestamp(milliseconds: now),
            message: rule.interval == nil
                ? message(rule: rule, sensor: sensor, notice: notice, value: status.value)
                : usageMessage(rule: rule, sensor: sensor, units: usageUnits, notice: notice, value: status.value))
        var writer = JSONWriter(capacity: 512)
        notification.write(to: &writer)
        return writer.string
    }

    /// One line for a person: "Freezer too warm: Freezer is -8.5 °C, above -10 °C".
    static func message(rule: AlertRule, sensor: SensorInfo, notice: AlertJudge.Notice, value: Double?) -> String {
        func quantity(_ number: Double) -> String {
            sensor.units.isEmpty ? formatNumber(number) : "\(formatNumber(number)) \(sensor.units)"
        }
        let lead = switch notice {
        case .firing: rule.name
        case .reminder: "\(rule.name) (still firing)"
        case .resolved: "\(rule.name) resolved"
        }
        switch (rule.condition, notice) {
        case (.silent, .resolved):
            return "\(lead): \(sensor.name) reported again" + (value.map { ", \(quantity($0))" } ?? "")
        case (.silent, _):
            return "\(lead): no reading from \(sensor.name) for \(duration(rule.forSeconds))"
        case (_, .resolved):
            return "\(lead): \(sensor.name) is \(value.map(quantity) ?? "back")"
        default:
            let side = rule.condition == .above ? "above" : "below"
            let threshold = rule.threshold.map(quantity) ?? ""
            return "\(lead): \(sensor.name) is \(value.map(quantity) ?? "unknown"), \(side) \(threshold)"
        }
    }

    /// "Heat pump over 30 kWh: Heat pump used 31.2 kWh today, above 30 kWh";
    /// resolved, "Heat pump over 30 kWh resolved: a new day began; Heat pump
    /// used 34.5 kWh in the last".
    static func usageMessage(rule: AlertRule, sensor: SensorInfo, units: String, notice: AlertJudge.Notice,
                             value: Double?) -> String {
        func quantity(_ number: Double) -> String { units.isEmpty ? formatNumber(number) : "\(formatNumber(number)) \(units)" }
        let interval = rule.interval ?? .day
        if notice == .resolved {
            return "\(rule.name) resolved: a new \(interval.rawValue) began"
                + (value.map { "; \(sensor.name) used \(quantity($0)) in the last" } ?? "")
        }
        let running = switch interval {
        case .hour: "this hour"
        case .day: "today"
        case .week: "this week"
        case .month: "this month"
        }
        let lead = notice == .reminder ? "\(rule.name) (still firing)" : rule.name
        return "\(lead): \(sensor.name) used \(value.map(quantity) ?? "unknown") \(running), above "
            + (rule.threshold.map(quantity) ?? "")
    }

    /// "45s", "5m", "1h30m", "2d".
    static func duration(_ seconds: Int) -> String {
        var parts: [String] = []
        var rest = seconds
        for (unit, size) in [("d", 86_400), ("h", 3_600), ("m", 60)] where rest >= size {
            parts.append("\(rest / size)\(unit)")
            rest %= size
        }
        if rest > 0 || parts.isEmpty { parts.append("\(rest)s") }
        return parts.joined()
    }
}
