import SenseiPostgres
import SenseiModels

/// Alert rules, their state and the notification outbox (`AlertStore`).
///
/// Several nodes may share the database: each statement here is correct
/// whoever else writes (rows locked for the length of a change, no
/// read-then-write on stale reads). Which node evaluates and which delivers
/// is the multi-node step's (a lease, see `saveAlertChanges` and
/// `pendingNotifications`).
extension PostgresStore: AlertStore {
    func alerts() throws -> [StoredAlert] {
        try read { session in
            try session.rows("""
                SELECT \(unescaped: StoredAlert.postgresColumns)
                FROM alert_rules a JOIN sensors s ON s.id = a.sensor_id ORDER BY a.id
                """).map(StoredAlert.init(postgres:))
        }
    }

    func alert(id: Int64) throws -> StoredAlert? {
        try read { try Self.fetchAlert(id: id, in: $0) }
    }

    /// `lock`: the rule's row stays locked to the end of the transaction.
    static func fetchAlert(id: Int64, lock: Bool = false, in session: PostgresSession) throws -> StoredAlert? {
        try session.row("""
            SELECT \(unescaped: StoredAlert.postgresColumns)
            FROM alert_rules a JOIN sensors s ON s.id = a.sensor_id WHERE a.id = \(id)
            \(unescaped: lock ? "FOR UPDATE OF a" : "")
            """).map(StoredAlert.init(postgres:))
    }

    /// Stores a new rule, `ok`, judging readings newer than the sensor's
    /// newest now (as SQLite's).
    func createAlert(_ rule: AlertRule, at now: Timestamp) throws -> StoredAlert {
        try write { session in
            let latest = try Self.lockRuleSensor(rule.sensorID, in: session)
            let status = AlertStatus.fresh(at: now.milliseconds, judgedTimestamp: latest)
            var binds = Self.ruleBindings(rule, status)
            binds.append(now.milliseconds)
            let id = try session.row(PGQuery(unsafeSQL: """
                INSERT INTO alert_rules (\(Self.ruleColumns), created_at)
                VALUES (\(Self.placeholders(1...Self.ruleColumnCount + 1)))
                RETURNING id
                """, binds: binds))!.decode(Int64.self)
            return try Self.fetchAlert(id: id, in: session)!
        }
    }

    /// A change to what the rule judges starts it again from `ok` (as SQLite's).
    func updateAlert(id: Int64, at now: Timestamp,
                     _ change: @escaping @Sendable (AlertRule) throws -> AlertRule) throws -> StoredAlert? {
        try write { session in
            // Locked: a concurrent change (another node's) waits for this one and sees it.
            guard let old = try Self.fetchAlert(id: id, lock: true, in: session) else { return nil }
            let rule = try change(old.rule)
            var status = old.status
            let latest = try Self.lockRuleSensor(rule.sensorID, in: session)
            if rule.judgesDifferently(from: old.rule) {
                status = .fresh(at: now.milliseconds, judgedTimestamp: latest)
            }
            var binds = Self.ruleBindings(rule, status)
            binds.append(id)
            try session.execute(PGQuery(unsafeSQL: """
                UPDATE alert_rules SET (\(Self.ruleColumns)) = (\(Self.placeholders(1...Self.ruleColumnCount)))
                WHERE id = $\(Self.ruleColumnCount + 1)
                """, binds: binds))
            return try Self.fetchAlert(id: id, in: session)
        }
    }

    /// Its undelivered notifications stay and go out.
    func deleteAlert(id: Int64) throws -> Bool {
        try write { try $0.execute("DELETE FROM alert_rules WHERE id = \(id)") } > 0
    }

    /// The newest reading's timestamp of a rule's sensor, whose row stays
    /// locked against deletion to the end of the transaction (a sensor deleted
    /// through another node meanwhile is `sensorNotFound`, not a foreign key error).
    private static func lockRuleSensor(_ id: Int64, in session: PostgresSession) throws -> Int64? {
        guard let row = try session.row("SELECT latest_ts FROM sensors WHERE id = \(id) FOR KEY SHARE") else {
            throw StoreError.sensorNotFound(.id(id))
        }
        return try row.decode(Int64?.self)
    }

    /// The columns `ruleBindings` binds, in order.
    private static let ruleColumns = """
        name, sensor_id, condition, threshold, for_seconds, hysteresis, repeat_seconds, notify, interval, tz, \
        state, since, value, judged_ts, notified_at
        """
    private static let ruleColumnCount = 15

    private static func ruleBindings(_ rule: AlertRule, _ status: AlertStatus) -> PGBindings {
        var binds = PGBindings(capacity: ruleColumnCount + 1)
        binds.append(rule.name)
        binds.append(rule.sensorID)
        binds.append(rule.condition.rawValue)
        binds.append(rule.threshold)
        binds.append(Int64(rule.forSeconds))
        binds.append(rule.hysteresis)
        binds.append(rule.repeatSeconds.map(Int64.init))
        binds.append(AlertNotifyColumn.text(rule.notify))
        binds.append(rule.interval?.rawValue)
        binds.append(rule.timeZone)
        binds.append(status.state.rawValue)
        binds.append(status.since)
        binds.append(status.value)
        binds.append(status.judgedTimestamp)
        binds.append(status.notifiedAt)
        return binds
    }

    /// "$1, $2, …" for these parameter numbers.
    private static func placeholders(_ numbers: ClosedRange<Int>) -> String {
        numbers.map { "$\($0)" }.joined(separator: ", ")
    }

    /// Stores the changes and their outbox entries in one transaction, on
    /// `alertWrites` (in the order they were made; the caller does not
    /// wait), and calls `completion` once committed.
    ///
    /// Multi-node: only the node holding the evaluation lease calls this;
    /// the step that adds the lease checks here, in this transaction, that it
    /// still holds it, so that a node that lost it stores nothing.
    func saveAlertChanges(_ changes: [AlertStatusChange], at now: Int64,
                          notification: @escaping @Sendable (AlertTransition) -> String,
                          completion: @escaping @Sendable (Result<SavedAlertChanges, any Error>) -> Void) {
        alertWrites.async { [self] in
            completion(Result {
                try write { session in
                    try SavedAlertChanges(storing: changes, save: { change in
                        try Self.saveAlertStatus(change, notification: notification, at: now, in: session)
                    }, fetch: { id in try Self.fetchAlert(id: id, in: session) })
                }
            })
        }
    }

    /// One change: how many outbox entries it queued, or nil if the rule is
    /// gone (deleted meanwhile, or with its sensor).
    private static func saveAlertStatus(_ change: AlertStatusChange, notification: (AlertTransition) -> String,
                                        at now: Int64, in session: PostgresSession) throws -> Int? {
        let status = change.status
        let updated = try session.execute("""
            UPDATE alert_rules SET state = \(status.state.rawValue), since = \(status.since), value = \(status.value),
                judged_ts = \(status.judgedTimestamp), notified_at = \(status.notifiedAt)
            WHERE id = \(change.id)
            """)
        guard updated > 0 else { return nil }
        guard let notice = change.notice, let stored = try fetchAlert(id: change.id, in: session),
              let sensor = try fetchSensor(.id(stored.rule.sensorID), in: session) else { return 0 }
        let payload = notification(AlertTransition(alert: stored, sensor: sensor, notice: notice, at: now))
        try session.execute("""
            INSERT INTO alert_outbox (rule_id, url, payload, next_attempt_at, created_at)
            SELECT \(change.id), url, \(payload), \(now), \(now) FROM unnest(\(stored.rule.notify)::text[]) AS u(url)
            """)
        return stored.rule.notify.count
    }
}

/// The notification outbox.
extension PostgresStore {
    /// Notifications still to deliver, oldest first.
    ///
    /// Multi-node: the delivering node will claim its rows (`FOR UPDATE SKIP
    /// LOCKED` in a transaction held over the attempt, or a claim column with
    /// an expiry), so that no two nodes send one entry and a dead node's
    /// entries go to another; the sender's loop stays as it is.
    func pendingNotifications() throws -> [OutboxEntry] {
        try read { session in
            try session.rows("""
                SELECT id, url, payload, attempts, next_attempt_at FROM alert_outbox
                WHERE failed_at IS NULL ORDER BY id
                """).map(OutboxEntry.init(postgres:))
        }
    }

    /// The receiver took it: it leaves the outbox.
    func notificationDelivered(id: Int64) throws {
        try write { try $0.execute("DELETE FROM alert_outbox WHERE id = \(id)") }
    }

    /// An attempt failed: try again at `retryAt`, or never (nil) once the retries are spent.
    func notificationAttemptFailed(id: Int64, error: String, retryAt: Int64?, at now: Int64) throws {
        let failedAt: Int64? = retryAt == nil ? now : nil
        try write { session in
            try session.execute("""
                UPDATE alert_outbox SET attempts = attempts + 1, last_error = \(String(error.prefix(500))),
                    next_attempt_at = coalesce(\(retryAt), next_attempt_at), failed_at = \(failedAt)
                WHERE id = \(id)
                """)
        }
    }

    /// Outbox entries waiting to go out, and those given up on.
    func outboxCounts() throws -> (pending: Int, failed: Int) {
        try read { session in
            let row = try session.row("""
                SELECT count(*) FILTER (WHERE failed_at IS NULL) AS pending,
                       count(*) FILTER (WHERE failed_at IS NOT NULL) AS failed
                FROM alert_outbox
                """)
            guard let columns = row else { return (0, 0) }
            return (Int(try columns["pending"].decode(Int64.self)), Int(try columns["failed"].decode(Int64.self)))
        }
    }
}
