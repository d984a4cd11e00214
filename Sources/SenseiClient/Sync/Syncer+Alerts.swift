import SenseiModels

extension Syncer {
    /// Fetches the alert rules and keeps them in the cache; offline, the
    /// cached ones. Alerts are beside the readings, not part of their sync:
    /// a failure here never fails a sync.
    public func syncAlerts() async -> (alerts: [AlertStatus], live: Bool) {
        do {
            let alerts = try await client.alerts()
            try? cache.saveFetchedAlerts(alerts)
            return (alerts, true)
        } catch {
            return ((try? cache.cachedAlerts()) ?? [], false)
        }
    }
}
