import SenseiModels

/// What an alert rule watches for.
public enum AlertCondition: String, Sendable, CaseIterable {
    /// A reading above the threshold.
    case above
    /// A reading below the threshold.
    case below
    /// No reading for `for` seconds.
    case silent
    /// The usage of the running calendar interval (a counter's increase, a
    /// gauge's integral) past the threshold: at most once an interval.
    case usageAbove = "usage_above"
}

/// Where a rule stands: `pending` while its condition holds but not yet for
/// `for` seconds (Prometheus' pending state), `firing` once it has.
public enum AlertState: String, Sendable {
    case ok, pending, firing
}

/// A rule as a person wrote it (docs/design.md, "Alerts").
public struct AlertRule: Sendable, Equatable {
    public var name: String
    public var sensorID: Int64
    public var condition: AlertCondition
    /// nil for `silent`, required for the others.
    public var threshold: Double?
    /// Seconds the condition must hold before firing; the silence for `silent`.
    public var forSeconds: Int
    /// How far back past the threshold a value must be to resolve a firing rule.
    public var hysteresis: Double
    /// Seconds between notifications while firing; nil: only once.
    public var repeatSeconds: Int?
    /// Webhook URLs, and `ntfy:`-prefixed ntfy topic URLs.
    public var notify: [String]
    /// The calendar interval a `usage_above` rule counts in; nil for the others.
    public var interval: UsageInterval?
    /// The zone of that calendar (an IANA name); nil is UTC, and always for
    /// rules other than `usage_above`.
    public var timeZone: String?

    public init(name: String, sensorID: Int64, condition: AlertCondition, threshold: Double?, forSeconds: Int = 0,
                hysteresis: Double = 0, repeatSeconds: Int? = nil, notify: [String],
                interval: UsageInterval? = nil, timeZone: String? = nil) {
        self.name = name
        self.sensorID = sensorID
        self.condition = condition
        self.threshold = threshold
        self.forSeconds = forSeconds
        self.hysteresis = hysteresis
        self.repeatSeconds = repeatSeconds
        self.notify = notify
        self.interval = interval
        self.timeZone = timeZone
    }

    /// Whether a change from `old` to this rule changes what it judges, so
    /// that its state starts again from `ok`.
    func judgesDifferently(from old: AlertRule) -> Bool {
        sensorID != old.sensorID || condition != old.condition || threshold != old.threshold
            || forSeconds != old.forSeconds || hysteresis != old.hysteresis
            || interval != old.interval || timeZone != old.timeZone
    }
}

/// A rule's state and what the evaluator needs to carry it on after a restart.
/// Times are milliseconds since the epoch, on the server's clock.
public struct AlertStatus: Sendable, Equatable {
    public var state: AlertState
    /// When it entered `state`.
    public var since: Int64
    /// The reading that moved it there, or nil (a silence).
    public var value: Double?
    /// The timestamp of the newest reading judged: an older one arriving
    /// later (a device catching up) does not move the state back.
    public var judgedTimestamp: Int64?
    /// When the last notification was queued, for `repeat`.
    public var notifiedAt: Int64?

    public static func fresh(at now: Int64, judgedTimestamp: Int64?) -> AlertStatus {
        AlertStatus(state: .ok, since: now, value: nil, judgedTimestamp: judgedTimestamp, notifiedAt: nil)
    }
}

/// A stored rule, as `GET /alerts` serves it.
public struct StoredAlert: Sendable, Equatable {
    public var id: Int64
    public var rule: AlertRule
    public var status: AlertStatus
    /// The sensor's code, which the rule is served with.
    public var sensorCode: String
    /// For a `usage_above` rule, the units of its sensor's usage (W → Wh),
    /// served with it; nil for the others.
    public var usageUnits: String? = nil
}

extension StoredAlert: JSONWritable {
    /// The rule in its wire form, settings included.
    var wire: WireAlertRule {
        WireAlertRule(
            id: id, name: rule.name, sensor: sensorCode, condition: rule.condition.rawValue, threshold: rule.threshold,
            settings: WireAlertRule.Settings(forSeconds: rule.forSeconds, hysteresis: rule.hysteresis,
                                             repeatSeconds: rule.repeatSeconds, notify: rule.notify),
            interval: rule.interval?.rawValue, timeZone: rule.interval == nil ? nil : rule.timeZone ?? "UTC",
            units: rule.interval == nil ? nil : usageUnits ?? "",
            state: status.state.rawValue, since: Timestamp(milliseconds: status.since), value: status.value)
    }

    public func write(to writer: inout JSONWriter) {
        wire.write(WireAlertRule.Key.api, to: &writer)
    }
}
