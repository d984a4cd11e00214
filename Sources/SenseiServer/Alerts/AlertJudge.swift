/// The rules' state machine, without I/O: what a reading or the passing of
/// time does to a rule's status, and whether a person is to be told.
///
/// As in Prometheus' alerting rules, a condition first makes a rule
/// `pending`, and it fires once the condition has held `for` seconds (at once
/// when `for` is 0); a pending rule whose condition stops holding goes back
/// to `ok` without a word. A firing threshold rule resolves only once the
/// value is back past the threshold by `hysteresis`, so a value hovering at
/// the line does not flap. A `silent` rule fires once no reading came for
/// `for` seconds (Healthchecks' grace period) and resolves with the next.
/// A `usage_above` rule judges usage, not readings (`AlertJudge+Usage`).
/// Times are the server's clock in milliseconds.
enum AlertJudge {
    /// What a person hears of a change.
    enum Notice: Sendable, Equatable {
        case firing
        case resolved
        /// Still firing, `repeat` seconds after the last notice.
        case reminder
    }

    /// The status after a reading of `value` at `timestamp`, committed `now`;
    /// nil when nothing changes.
    static func judge(_ rule: AlertRule, _ status: AlertStatus, reading value: Double, at timestamp: Int64,
                      now: Int64) -> (AlertStatus, Notice?)? {
        guard rule.condition != .usageAbove else { return nil }
        if let judged = status.judgedTimestamp, timestamp < judged { return nil }
        var next = status
        next.judgedTimestamp = timestamp
        guard let threshold = rule.threshold, rule.condition != .silent else {
            // Any reading ends a silence.
            guard status.state == .firing else { return nil }
            next.state = .ok
            next.since = now
            next.value = value
            return (next, .resolved)
        }
        let beyond = rule.condition == .above ? value > threshold : value < threshold
        switch status.state {
        case .ok:
            guard beyond else { return nil }
            next.since = now
            next.value = value
            if rule.forSeconds == 0 {
                next.state = .firing
                next.notifiedAt = now
                return (next, .firing)
            }
            next.state = .pending
            return (next, nil)
        case .pending:
            guard beyond else {
                next.state = .ok
                next.since = now
                next.value = value
                return (next, nil)
            }
            guard now - status.since >= Int64(rule.forSeconds) * 1000 else { return nil }
            next.state = .firing
            next.since = now
            next.value = value
            next.notifiedAt = now
            return (next, .firing)
        case .firing:
            let back = rule.condition == .above
                ? value <= threshold - rule.hysteresis
                : value >= threshold + rule.hysteresis
            guard back else { return nil }
            next.state = .ok
            next.since = now
            next.value = value
            return (next, .resolved)
        }
    }

    /// The status once time has reached `now` with no reading since
    /// `lastSeen` (the last commit of one of the sensor's readings, or when
    /// watching began); nil when nothing changes.
    static func tick(_ rule: AlertRule, _ status: AlertStatus, lastSeen: Int64, now: Int64) -> (AlertStatus, Notice?)? {
        guard rule.condition != .usageAbove else { return nil }
        var next = status
        switch status.state {
        case .ok:
            guard rule.condition == .silent, now - lastSeen >= Int64(rule.forSeconds) * 1000 else { return nil }
            next.state = .firing
            next.since = now
            next.value = nil
            next.notifiedAt = now
            return (next, .firing)
        case .pending:
            // The condition held from `since` and no reading has said otherwise.
            guard now - status.since >= Int64(rule.forSeconds) * 1000 else { return nil }
            next.state = .firing
            next.since = now
            next.notifiedAt = now
            return (next, .firing)
        case .firing:
            guard let repeatSeconds = rule.repeatSeconds,
                  now - (status.notifiedAt ?? status.since) >= Int64(repeatSeconds) * 1000 else { return nil }
            next.notifiedAt = now
            return (next, .reminder)
        }
    }
}
