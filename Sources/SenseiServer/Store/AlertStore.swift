import SenseiModels

/// Alert rules, their state and the notification outbox. Storage returns
/// records; the alerts code (`Alerts/`) makes the messages.
protocol AlertStore: AnyObject, Sendable {
    func alerts() throws -> [StoredAlert]
    func alert(id: Int64) throws -> StoredAlert?
    func createAlert(_ rule: AlertRule, at now: Timestamp) throws -> StoredAlert
    /// nil if there is no such rule.
    func updateAlert(id: Int64, at now: Timestamp,
                     _ change: @escaping @Sendable (AlertRule) throws -> AlertRule) throws -> StoredAlert?
    func deleteAlert(id: Int64) throws -> Bool

    /// Stores the changes and, in the same transaction, the notifications
    /// they call for, each body made by `notification`; does not wait.
    func saveAlertChanges(_ changes: [AlertStatusChange], at now: Int64,
                          notification: @escaping @Sendable (AlertTransition) -> String,
                          completion: @escaping @Sendable (Result<SavedAlertChanges, any Error>) -> Void)

    func pendingNotifications() throws -> [OutboxEntry]
    func notificationDelivered(id: Int64) throws
    func notificationAttemptFailed(id: Int64, error: String, retryAt: Int64?, at now: Int64) throws
    func outboxCounts() throws -> (pending: Int, failed: Int)
}

extension SenseiStore: AlertStore {}
