import SenseiPostgres
import SenseiModels

/// Alert rows as the PostgreSQL store reads them, by column name.
extension StoredAlert {
    /// `alert_rules a` joined with its sensor `s`: the code it is served
    /// with, and the kind and units a usage rule's units come from.
    static let postgresColumns = """
        a.id, a.name, a.sensor_id, a.condition, a.threshold, a.for_seconds, a.hysteresis, a.repeat_seconds,
        a.notify, a.interval, a.tz, a.state, a.since, a.value, a.judged_ts, a.notified_at, s.code,
        s.kind AS sensor_kind, s.units AS sensor_units
        """

    init(postgres row: PGRow) throws {
        let columns = row
        let rule = AlertRule(
            name: try columns["name"].decode(String.self), sensorID: try columns["sensor_id"].decode(Int64.self),
            condition: AlertCondition(rawValue: try columns["condition"].decode(String.self)) ?? .above,
            threshold: try columns["threshold"].decode(Double?.self),
            forSeconds: Int(try columns["for_seconds"].decode(Int64.self)),
            hysteresis: try columns["hysteresis"].decode(Double.self),
            repeatSeconds: try columns["repeat_seconds"].decode(Int64?.self).map(Int.init),
            notify: AlertNotifyColumn.urls(try columns["notify"].decode(String.self)),
            interval: try columns["interval"].decode(String?.self).flatMap(UsageInterval.init(rawValue:)),
            timeZone: try columns["tz"].decode(String?.self))
        let status = AlertStatus(
            state: AlertState(rawValue: try columns["state"].decode(String.self)) ?? .ok,
            since: try columns["since"].decode(Int64.self), value: try columns["value"].decode(Double?.self),
            judgedTimestamp: try columns["judged_ts"].decode(Int64?.self),
            notifiedAt: try columns["notified_at"].decode(Int64?.self))
        self.init(id: try columns["id"].decode(Int64.self), rule: rule, status: status,
                  sensorCode: try columns["code"].decode(String.self))
        if rule.condition == .usageAbove {
            let kind = SensorKind(rawValue: try columns["sensor_kind"].decode(String.self)) ?? .gauge
            usageUnits = kind.usageUnits(forSensorUnits: try columns["sensor_units"].decode(String.self))
        }
    }
}

extension OutboxEntry {
    init(postgres row: PGRow) throws {
        let columns = row
        self.init(id: try columns["id"].decode(Int64.self), url: try columns["url"].decode(String.self),
                  payload: try columns["payload"].decode(String.self),
                  attempts: Int(try columns["attempts"].decode(Int32.self)),
                  nextAttemptAt: try columns["next_attempt_at"].decode(Int64.self))
    }
}
