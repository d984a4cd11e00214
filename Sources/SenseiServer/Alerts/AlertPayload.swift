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
                    notice: transition.notice, status: transition.alert.status, at: transition.at)
    }

    static func json(ruleID: Int64, rule: AlertRule, sensor: SensorInfo, notice: AlertJudge.Notice,
                     status: AlertStatus, at now: Int64) -> String {
        let notification = AlertNotification(
            ruleID: ruleID, ruleName: rule.name, sensor: sensor, state: notice == .resolved ? "resolved" : "firing",
            condition: rule.condition.rawValue, threshold: rule.threshold, value: status.value,
            at: Timestamp(milliseconds: now), message: message(rule: rule, sensor: sensor, notice: notice, value: status.value))
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
