import SenseiModels

/// The calendar a `usage_above` rule counts in: its interval in its zone.
struct UsageCalendar: Sendable, Equatable {
    var interval: UsageInterval
    var zone: TimeZoneRules

    /// The interval holding `milliseconds`, from its start to the next one's.
    func period(containing milliseconds: Int64) -> Range<Int64> {
        let start = interval.start(containing: milliseconds, in: zone)
        return start..<interval.next(after: start, in: zone)
    }
}

/// `usage_above` rules: a state that runs by the calendar rather than by
/// readings. An `ok` rule fires once the running interval's usage is past
/// the threshold; it stays firing for the rest of that interval and
/// resolves when the next one starts, so a person hears of it at most once
/// an interval. `for`, `hysteresis` and `repeat` do not apply.
extension AlertJudge {
    /// The status once the usage of `period` (the interval holding `now`)
    /// is known; nil when nothing changes.
    static func judgeUsage(_ rule: AlertRule, _ status: AlertStatus, usage: Double, of period: Range<Int64>,
                           now: Int64) -> (AlertStatus, Notice?)? {
        guard rule.condition == .usageAbove, status.state != .firing, period.contains(now),
              let threshold = rule.threshold, usage > threshold else { return nil }
        var next = status
        next.state = .firing
        next.since = now
        next.value = usage
        next.notifiedAt = now
        return (next, .firing)
    }

    /// Whether a firing rule's interval (the one it fired in) is over at `now`.
    static func usageIntervalEnded(_ status: AlertStatus, calendar: UsageCalendar, now: Int64) -> Bool {
        status.state == .firing && now >= calendar.period(containing: status.since).upperBound
    }

    /// A firing rule once a new interval has started: it resolves, with the
    /// usage of the interval it fired in (`finished`; nil when unknown).
    static func resolveUsage(_ rule: AlertRule, _ status: AlertStatus, calendar: UsageCalendar, finished: Double?,
                             now: Int64) -> (AlertStatus, Notice?)? {
        guard rule.condition == .usageAbove, usageIntervalEnded(status, calendar: calendar, now: now) else { return nil }
        var next = status
        next.state = .ok
        next.since = now
        next.value = finished
        return (next, .resolved)
    }
}
