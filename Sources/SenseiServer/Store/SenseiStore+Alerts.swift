import GRDB
import SenseiModels

/// Alert rules, their persisted state and the notification outbox.
extension SenseiStore {
    /// Every rule, oldest first.
    public func alerts() throws -> [StoredAlert] {
        try pool.read { db in try Self.fetchAlerts(in: db) }
    }

    static func fetchAlerts(in db: Database) throws -> [StoredAlert] {
        try StoredAlert.fetchAll(db, sql: """
            SELECT \(StoredAlert.columns) FROM alert_rules a JOIN sensors s ON s.id = a.sensor_id ORDER BY a.id
            """).map { try withUsageUnits($0, in: db) }
    }

    public func alert(id: Int64) throws -> StoredAlert? {
        try pool.read { db in try Self.fetchAlert(id: id, in: db) }
    }

    static func fetchAlert(id: Int64, in db: Database) throws -> StoredAlert? {
        try StoredAlert.fetchOne(db, sql: """
            SELECT \(StoredAlert.columns) FROM alert_rules a JOIN sensors s ON s.id = a.sensor_id WHERE a.id = ?
            """, arguments: [id]).map { try withUsageUnits($0, in: db) }
    }

    /// A usage rule's units come from its sensor's kind and units, as
    /// `GET /usage` gives them.
    private static func withUsageUnits(_ alert: StoredAlert, in db: Database) throws -> StoredAlert {
        guard alert.rule.condition == .usageAbove, let sensor = try fetchSensor(.id(alert.rule.sensorID), in: db) else {
            return alert
        }
        var alert = alert
        alert.usageUnits = sensor.kind.usageUnits(forSensorUnits: sensor.units)
        return alert
    }

    /// Stores a new rule, `ok`. It judges readings newer than the sensor's
    /// newest now: those already stored are history, not news.
    public func createAlert(_ rule: AlertRule, at now: Timestamp = .now()) throws -> StoredAlert {
        try groupCommit.write { db in
            guard let sensor = try Self.fetchSensor(.id(rule.sensorID), in: db) else {
                throw StoreError.sensorNotFound(.id(rule.sensorID))
            }
            let status = AlertStatus.fresh(at: now.milliseconds, judgedTimestamp: sensor.latest?.timestamp.milliseconds)
            try db.execute(sql: """
                INSERT INTO alert_rules (name, sensor_id, condition, threshold, for_seconds, hysteresis,
                    repeat_seconds, notify, interval, tz, state, since, value, judged_ts, notified_at, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: Self.ruleArguments(rule) + Self.statusArguments(status) + [now.milliseconds])
            return try Self.fetchAlert(id: db.lastInsertedRowID, in: db)!
        }
    }

    /// Changes a rule with `change`, which sees it as stored; nil if there is
    /// no such rule. A change to what it judges starts it again from `ok`.
    public func updateAlert(id: Int64, at now: Timestamp = .now(),
                            _ change: @escaping @Sendable (AlertRule) throws -> AlertRule) throws -> StoredAlert? {
        try groupCommit.write { db in
            guard let old = try Self.fetchAlert(id: id, in: db) else { return nil }
            let rule = try change(old.rule)
            var status = old.status
            if rule.judgesDifferently(from: old.rule) {
                let latest = try Self.fetchSensor(.id(rule.sensorID), in: db)?.latest
                status = .fresh(at: now.milliseconds, judgedTimestamp: latest?.timestamp.milliseconds)
            }
            try db.execute(sql: """
                UPDATE alert_rules SET name = ?, sensor_id = ?, condition = ?, threshold = ?, for_seconds = ?,
                    hysteresis = ?, repeat_seconds = ?, notify = ?, interval = ?, tz = ?, state = ?, since = ?,
                    value = ?, judged_ts = ?, notified_at = ?
                WHERE id = ?
                """, arguments: Self.ruleArguments(rule) + Self.statusArguments(status) + [id])
            return try Self.fetchAlert(id: id, in: db)
        }
    }

    /// Deletes a rule; false if there was none. Its undelivered notifications stay and go out.
    public func deleteAlert(id: Int64) throws -> Bool {
        try groupCommit.write { db in
            try db.execute(sql: "DELETE FROM alert_rules WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    private static func ruleArguments(_ rule: AlertRule) -> StatementArguments {
        [rule.name, rule.sensorID, rule.condition.rawValue, rule.threshold, rule.forSeconds,
         rule.hysteresis, rule.repeatSeconds, AlertNotifyColumn.text(rule.notify), rule.interval?.rawValue,
         rule.timeZone]
    }

    private static func statusArguments(_ status: AlertStatus) -> StatementArguments {
        [status.state.rawValue, status.since, status.value, status.judgedTimestamp, status.notifiedAt]
    }

    /// Stores each change and, in the same transaction, one outbox entry per
    /// notify URL when a person is to be told, with the body `notification`
    /// makes of the stored rule and sensor. `completion` runs on the writer
    /// thread once committed; the caller does not wait.
    func saveAlertChanges(_ changes: [AlertStatusChange], at now: Int64,
                          notification: @escaping @Sendable (AlertTransition) -> String,
                          completion: @escaping @Sendable (Result<SavedAlertChanges, any Error>) -> Void) {
        groupCommit.submit({ db in
            try SavedAlertChanges(storing: changes, save: { change in
                try Self.saveAlertStatus(change, notification: notification, at: now, in: db)
            }, fetch: { id in try Self.fetchAlert(id: id, in: db) })
        }, completion: completion)
    }

    /// One change of `saveAlertChanges`: how many entries it queued, or nil
    /// if the rule is gone (deleted meanwhile, or with its sensor).
    private static func saveAlertStatus(_ change: AlertStatusChange,
                                        notification: (AlertTransition) -> String,
                                        at now: Int64, in db: Database) throws -> Int? {
        try db.execute(sql: """
            UPDATE alert_rules SET state = ?, since = ?, value = ?, judged_ts = ?, notified_at = ? WHERE id = ?
            """, arguments: statusArguments(change.status) + [change.id])
        guard db.changesCount > 0 else { return nil }
        guard let notice = change.notice, let stored = try fetchAlert(id: change.id, in: db),
              let sensor = try fetchSensor(.id(stored.rule.sensorID), in: db) else { return 0 }
        let payload = notification(AlertTransition(alert: stored, sensor: sensor, notice: notice, at: now))
        for url in stored.rule.notify {
            try db.execute(sql: """
                INSERT INTO alert_outbox (rule_id, url, payload, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?)
                """, arguments: [change.id, url, payload, now, now])
        }
        return stored.rule.notify.count
    }
}


extension SenseiStore {
    /// Notifications still to deliver, oldest first.
    func pendingNotifications() throws -> [OutboxEntry] {
        try pool.read { db in
            try OutboxEntry.fetchAll(db, sql: """
                SELECT \(OutboxEntry.columns) FROM alert_outbox WHERE failed_at IS NULL ORDER BY id
                """)
        }
    }

    /// The receiver took it: it leaves the outbox.
    func notificationDelivered(id: Int64) throws {
        try groupCommit.write { db in try db.execute(sql: "DELETE FROM alert_outbox WHERE id = ?", arguments: [id]) }
    }

    /// An attempt failed: try again at `retryAt`, or never (nil) once the retries are spent.
    func notificationAttemptFailed(id: Int64, error: String, retryAt: Int64?, at now: Int64) throws {
        try groupCommit.write { db in
            try db.execute(sql: """
                UPDATE alert_outbox SET attempts = attempts + 1, last_error = ?, next_attempt_at = coalesce(?, next_attempt_at),
                    failed_at = CASE WHEN ? IS NULL THEN ? END
                WHERE id = ?
                """, arguments: [String(error.prefix(500)), retryAt, retryAt, now, id])
        }
    }

    /// Outbox entries waiting to go out, and those given up on.
    func outboxCounts() throws -> (pending: Int, failed: Int) {
        try pool.read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT count(*) FILTER (WHERE failed_at IS NULL) AS pending,
                       count(*) FILTER (WHERE failed_at IS NOT NULL) AS failed
                FROM alert_outbox
                """)
            return (row?["pending"] ?? 0, row?["failed"] ?? 0)
        }
    }
}
