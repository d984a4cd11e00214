import GRDB
import SenseiModels

/// A row of `alert_rules` joined with its sensor's code (`columns`), read by
/// column name.
extension StoredAlert: FetchableRecord {
    static let columns = """
        a.id, a.name, a.sensor_id, a.condition, a.threshold, a.for_seconds, a.hysteresis, a.repeat_seconds,
        a.notify, a.interval, a.tz, a.state, a.since, a.value, a.judged_ts, a.notified_at, s.code
        """

    public init(row: Row) {
        let notify = AlertNotifyColumn.urls(row["notify"])
        let rule = AlertRule(
            name: row["name"], sensorID: row["sensor_id"],
            condition: AlertCondition(rawValue: row["condition"]) ?? .above, threshold: row["threshold"],
            forSeconds: row["for_seconds"], hysteresis: row["hysteresis"], repeatSeconds: row["repeat_seconds"],
            notify: notify, interval: (row["interval"] as String?).flatMap(UsageInterval.init(rawValue:)),
            timeZone: row["tz"])
        let status = AlertStatus(
            state: AlertState(rawValue: row["state"]) ?? .ok, since: row["since"], value: row["value"],
            judgedTimestamp: row["judged_ts"], notifiedAt: row["notified_at"])
        self.init(id: row["id"], rule: rule, status: status, sensorCode: row["code"])
    }
}

/// A notification waiting in the outbox.
struct OutboxEntry: Sendable, Equatable {
    var id: Int64
    var url: String
    var payload: String
    var attempts: Int
    var nextAttemptAt: Int64
}

extension OutboxEntry: FetchableRecord {
    static let columns = "id, url, payload, attempts, next_attempt_at"

    init(row: Row) {
        self.init(id: row["id"], url: row["url"], payload: row["payload"], attempts: row["attempts"],
                  nextAttemptAt: row["next_attempt_at"])
    }
}
