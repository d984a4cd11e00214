import PostgresNIO
import SenseiModels

/// Alert rules, their state and the notification outbox (`AlertStore`).
extension PostgresStore: AlertStore {
    func alerts() throws -> [StoredAlert] {
        throw PostgresStoreError.notYet("alerts")
    }

    func alert(id: Int64) throws -> StoredAlert? {
        throw PostgresStoreError.notYet("alert")
    }

    func createAlert(_ rule: AlertRule, at now: Timestamp) throws -> StoredAlert {
        throw PostgresStoreError.notYet("createAlert")
    }

    func updateAlert(id: Int64, at now: Timestamp,
                     _ change: @escaping @Sendable (AlertRule) throws -> AlertRule) throws -> StoredAlert? {
        throw PostgresStoreError.notYet("updateAlert")
    }

    func deleteAlert(id: Int64) throws -> Bool {
        throw PostgresStoreError.notYet("deleteAlert")
    }

    func saveAlertChanges(_ changes: [AlertStatusChange], at now: Int64,
                          notification: @escaping @Sendable (AlertTransition) -> String,
                          completion: @escaping @Sendable (Result<SavedAlertChanges, any Error>) -> Void) {
        completion(.failure(PostgresStoreError.notYet("saveAlertChanges")))
    }

    func pendingNotifications() throws -> [OutboxEntry] {
        throw PostgresStoreError.notYet("pendingNotifications")
    }

    func notificationDelivered(id: Int64) throws {
        throw PostgresStoreError.notYet("notificationDelivered")
    }

    func notificationAttemptFailed(id: Int64, error: String, retryAt: Int64?, at now: Int64) throws {
        throw PostgresStoreError.notYet("notificationAttemptFailed")
    }

    func outboxCounts() throws -> (pending: Int, failed: Int) {
        throw PostgresStoreError.notYet("outboxCounts")
    }
}
