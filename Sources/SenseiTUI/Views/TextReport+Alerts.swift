import SenseiClient
import SenseiModels

extension TextReport {
    /// Alert rules as a table, firing first, then pending, then ok; by name within each.
    public static func alerts(_ alerts: [AlertStatus], _ context: Context) -> String {
        guard !alerts.isEmpty else { return "no alert rules\n" }
        let rows = [["STATE", "NAME", "SENSOR", "CONDITION", "SINCE", "VALUE"]] + ordered(alerts).map { alert in
            [alert.state.rawValue, alert.name, alert.sensor, condition(alert),
             Format.dateTime(alert.since, utcOffsetSeconds: context.utcOffsetSeconds, seconds: false)
                + " (" + Format.age(of: alert.since, now: context.now) + ")",
             value(alert)]
                .map(context.charset.displayable)
        }
        return table(rows)
    }

    public static func alertsJSON(_ alerts: [AlertStatus]) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("alerts")
        writer.beginArray()
        for alert in ordered(alerts) { alert.write(to: &writer) }
        writer.endArray()
        writer.endObject()
        return writer.string + "\n"
    }

    /// Firing first: what needs a person.
    static func ordered(_ alerts: [AlertStatus]) -> [AlertStatus] {
        let rank: [AlertStatus.State: Int] = [.firing: 0, .pending: 1, .ok: 2]
        return alerts.sorted { a, b in
            (rank[a.state] ?? 3, a.name, a.id) < (rank[b.state] ?? 3, b.name, b.id)
        }
    }

    /// `above 25`, `below -10`, `silent`, `usage_above 30 kWh/day`, with a
    /// usage rule's zone when it is not UTC (`usage_above 30 kWh/day Europe/Berlin`).
    static func condition(_ alert: AlertStatus) -> String {
        guard let threshold = alert.threshold else { return alert.condition }
        guard let interval = alert.interval else { return alert.condition + " " + Format.value(threshold, type: .float) }
        let zone = alert.timeZone.map { $0 == "UTC" ? "" : " " + $0 } ?? ""
        return alert.condition + " " + Format.value(threshold, type: .float, units: alert.units ?? "") + "/" + interval + zone
    }

    /// The value that moved the rule; a usage with its units.
    static func value(_ alert: AlertStatus) -> String {
        alert.value.map { Format.value($0, type: .float, units: alert.interval == nil ? "" : alert.units ?? "") } ?? "-"
    }
}
