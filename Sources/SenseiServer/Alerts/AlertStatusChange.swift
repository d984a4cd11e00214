import SenseiModels

/// A change the evaluator stores: a rule's new status and what a person
/// hears of it.
struct AlertStatusChange: Sendable {
    var id: Int64
    var status: AlertStatus
    var notice: AlertJudge.Notice?
    /// Its state, `since` or value moved (a reminder moves none): the
    /// live stream tells its listeners.
    var moved: Bool

    init(id: Int64, from old: AlertStatus, to status: AlertStatus, notice: AlertJudge.Notice?) {
        self.id = id
        self.status = status
        self.notice = notice
        moved = old.state != status.state || old.since != status.since || old.value != status.value
    }
}

/// What a notification is made from: the rule and its sensor as stored, read
/// in the transaction that stores the transition.
struct AlertTransition: Sendable {
    var alert: StoredAlert
    var sensor: Sensor
    var notice: AlertJudge.Notice
    var at: Int64
}

/// What storing a batch of changes did.
struct SavedAlertChanges: Sendable {
    /// Outbox entries queued.
    var queued = 0
    /// Rules gone meanwhile (deleted, or with their sensor).
    var gone: [Int64] = []
    /// The rules whose state moved, as stored.
    var moved: [StoredAlert] = []
}

extension SavedAlertChanges {
    /// Stores `changes` in order, each with `save` (the entries it queued,
    /// or nil when the rule is gone), and reads back with `fetch` those whose
    /// state moved: one backend's transaction, whichever the backend.
    init(storing changes: [AlertStatusChange], save: (AlertStatusChange) throws -> Int?,
         fetch: (Int64) throws -> StoredAlert?) throws {
        self.init()
        for change in changes {
            guard let queued = try save(change) else {
                gone.append(change.id)
                continue
            }
            self.queued += queued
            if change.moved, let alert = try fetch(change.id) { moved.append(alert) }
        }
    }
}
