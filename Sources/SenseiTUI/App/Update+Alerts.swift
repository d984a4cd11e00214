import SenseiClient
import SenseiModels

/// An alert change from the live stream, and when the model took it.
struct ReceivedAlertChange: Hashable, Sendable {
    var change: AlertChange
    var at: Timestamp
}

/// The alert rules from two sources: whole lists (the cache at start, each
/// sync, `a` online) and the live stream's changes one by one.
extension AppModel {
    /// How long a stream change is kept to be applied again over a list
    /// fetched before it: longer than any fetch takes.
    static let alertChangeMemory: Int64 = 120_000

    /// A change from the stream: applied at once (the `!` marks and `a` follow).
    mutating func receiveAlertChange(_ change: AlertChange) {
        alerts = alerts.applying(change)
        forgetOldAlertChanges()
        recentAlertChanges.append(ReceivedAlertChange(change: change, at: now))
        clampAlerts()
    }

    /// A whole list. It may have been fetched before changes the stream has
    /// brought since (a rule created while `a`'s fetch was answered would
    /// vanish again): those are applied again over it, except a state the
    /// list already has newer.
    mutating func receiveAlerts(_ list: [AlertStatus]) {
        forgetOldAlertChanges()
        alerts = recentAlertChanges.reduce(list) { $0.reapplying($1.change) }
        clampAlerts()
    }

    private mutating func forgetOldAlertChanges() {
        recentAlertChanges.removeAll { now.milliseconds - $0.at.milliseconds > Self.alertChangeMemory }
    }
}

extension [AlertStatus] {
    /// `applying(change)` for a change that may be older than these rules: a
    /// rule that entered its state after the change's is left as it is.
    func reapplying(_ change: AlertChange) -> [AlertStatus] {
        if let rule = change.rule, let current = first(where: { $0.id == rule.id }), current.since > rule.since {
            return self
        }
        return applying(change)
    }
}
