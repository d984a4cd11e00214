import SenseiModels

extension Syncer {
    /// Fetches the sensor's usage for the range in the zone and keeps it in
    /// the cache; when the server does not answer, what the cache has (nil
    /// when nothing). A 404 is kept as "no usage on this server" (an older
    /// server); the route's other refusals leave the cache as it was. Beside
    /// the readings' sync, like alerts: it never fails one.
    /// `oldest`: where `.all` starts (the oldest reading the cache holds).
    public func syncUsage(for sensor: Sensor, range: TimeRange, zone: TimeZoneRules, now: Timestamp,
                          oldest: Timestamp? = nil) async -> CachedUsage? {
        let plan = UsagePlan(range: range, now: now, zone: zone, oldest: oldest)
        let fetched: CachedUsage
        do {
            let report = try await client.usage(sensorId: sensor.id, interval: plan.interval, after: plan.after,
                                                before: plan.before, zone: zone.identifier)
            fetched = CachedUsage(report: report, fetchedAt: now)
        } catch .server(status: 404, _) {
            fetched = CachedUsage(report: nil, fetchedAt: now)
        } catch {
            return try? cache.cachedUsage(sensorId: sensor.id, range: range, zone: zone.identifier)
        }
        try? cache.saveUsage(fetched, sensorId: sensor.id, range: range, zone: zone.identifier)
        return fetched
    }
}
