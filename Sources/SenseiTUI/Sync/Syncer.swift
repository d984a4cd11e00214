import SenseiModels

/// What one sync moved, so callers (and tests) can see what crossed the wire.
public struct SyncSummary: Sendable, Equatable {
    /// Sensors the server listed.
    public var sensorsSeen = 0
    /// Sensors new to the cache (appended to the user's order).
    public var sensorsAdded = 0
    /// Sensors gone from the server, removed from the cache with their readings.
    public var sensorsRemoved = 0
    /// Readings fetched and stored.
    public var readingsFetched = 0
    /// Sensors whose cached readings were compared with the server's.
    public var sensorsAudited = 0
    /// Readings fetched again by those audits, where a span differed.
    public var readingsRefetched = 0
    /// Cached readings the server no longer has (past retention, or gone in
    /// an audited span), removed.
    public var readingsDropped = 0
    /// HTTP requests made.
    public var requests = 0
    /// When the sync completed (also kept in the cache as the last sync).
    public var finishedAt = Timestamp(milliseconds: 0)

    public init() {}
}

/// Why a sync stopped: the server's answer, or the cache refusing a write.
public enum SyncError: Error, Sendable, Equatable {
    case server(SyncFailure)
    case cache(String)
}

/// Brings the cache up to date with the server, incrementally: the sensor
/// list in full (it is small), then per sensor only the readings after its
/// newest cached one, oldest first, a page per request and a transaction per
/// page. A sync cut short keeps every page it stored; the next one goes on
/// from there.
///
/// What "newer than the newest" misses is caught by an audit (`SyncAudit`):
/// at once when the server counts other readings than the cache holds, and
/// every `auditInterval` otherwise (a replaced value leaves the count as it
/// was). Readings past a sensor's retention leave the cache as they leave
/// the server.
public struct Syncer: Sendable {
    public let client: APIClient
    public let cache: SensorCache
    public let pageSize: Int
    /// Milliseconds between two audits of a sensor whose count agrees.
    public let auditInterval: Int64
    /// Requests one sensor's audit may make in one sync.
    public let auditBudget: Int

    public init(client: APIClient, cache: SensorCache, pageSize: Int = APIClient.maximumPageSize,
                auditInterval: Int64 = 15 * 60_000, auditBudget: Int = 32) {
        self.client = client
        self.cache = cache
        self.pageSize = max(1, min(pageSize, APIClient.maximumPageSize))
        self.auditInterval = auditInterval
        self.auditBudget = max(1, auditBudget)
    }

    public func sync(now: @Sendable () -> Timestamp = { .now() }) async throws(SyncError) -> SyncSummary {
        var summary = SyncSummary()
        summary.requests += 1
        let sensors: [Sensor]
        do { sensors = try await client.sensors() } catch { throw .server(error) }
        summary.sensorsSeen = sensors.count
        let merge = try cacheStep { try cache.mergeSensors(sensors) }
        summary.sensorsAdded = merge.added.count
        summary.sensorsRemoved = merge.removed.count
        for sensor in sensors {
            do {
                try await sync(sensor, now: now(), into: &summary)
            } catch .server(.server(status: 404, _)) {
                // Deleted since the list was fetched.
                try cacheStep { try cache.removeSensor(id: sensor.id) }
                summary.sensorsRemoved += 1
            }
        }
        summary.finishedAt = now()
        try cacheStep { try cache.setLastSync(summary.finishedAt) }
        return summary
    }

    /// One sensor: retention, the newer readings, then an audit if one is due.
    private func sync(_ sensor: Sensor, now: Timestamp, into summary: inout SyncSummary) async throws(SyncError) {
        let cutoff = sensor.retentionDays.map { now.adding(milliseconds: -Int64($0) * 86_400_000) }
        if let cutoff {
            summary.readingsDropped += try cacheStep { try cache.trimReadings(sensorId: sensor.id, before: cutoff) }
        }
        let newest = try cacheStep { try cache.newestTimestamp(sensorId: sensor.id) }
        try await syncReadings(of: sensor, after: newest, into: &summary)
        if newest == nil {
            // Fetched whole just now: nothing to compare yet.
            try cacheStep { try cache.setAuditedAt(now, sensorId: sensor.id) }
        } else if try auditIsDue(sensor, now: now) {
            try await audit(sensor, from: cutoff, now: now, into: &summary)
        }
    }

    /// Pages through the readings after `newest`, the newest cached one. The
    /// server's `count` is not trusted to stop early: an empty or short page
    /// is the end.
    private func syncReadings(of sensor: Sensor, after newest: Timestamp?,
                              into summary: inout SyncSummary) async throws(SyncError) {
        // No readings on the server, or none newer than the cache's: no request at all.
        guard let latest = sensor.latest?.timestamp else { return }
        var newest = newest
        if let cached = newest, latest <= cached { return }
        while true {
            summary.requests += 1
            let page: [Reading]
            do {
                page = try await client.readings(sensorId: sensor.id, after: newest?.adding(milliseconds: 1),
                                                 limit: pageSize)
            } catch {
                throw .server(error)
            }
            guard let last = page.last else { return }
            try cacheStep { try cache.insertReadings(page, sensorId: sensor.id) }
            summary.readingsFetched += page.count
            guard page.count >= pageSize, last.timestamp > newest ?? Timestamp(milliseconds: .min) else { return }
            newest = last.timestamp
        }
    }

    /// Due every `auditInterval`, and at once when the server counted other
    /// readings up to its latest than the cache holds. With a retention the
    /// counts are not compared: the server keeps expired readings until its
    /// next sweep.
    private func auditIsDue(_ sensor: Sensor, now: Timestamp) throws(SyncError) -> Bool {
        let audited = try cacheStep { try cache.auditedAt(sensorId: sensor.id) }
        if audited.map({ now.milliseconds - $0.milliseconds >= auditInterval }) ?? true { return true }
        guard sensor.retentionDays == nil else { return false }
        let listed = sensor.latest?.timestamp ?? Timestamp(milliseconds: Timestamp.range.upperBound)
        return try cacheStep { try cache.readingCount(sensorId: sensor.id, through: listed) } != sensor.count
    }

    /// Compares everything from the retention cutoff (or the epoch, or the
    /// oldest cached reading if older) to the newest reading either side knows.
    private func audit(_ sensor: Sensor, from cutoff: Timestamp?, now: Timestamp,
                       into summary: inout SyncSummary) async throws(SyncError) {
        let newest = try cacheStep { try cache.newestTimestamp(sensorId: sensor.id) }
        let oldest = try cacheStep { try cache.oldestTimestamp(sensorId: sensor.id) }
        guard let through = [sensor.latest?.timestamp, newest].compactMap({ $0 }).max() else { return }
        let from = cutoff ?? min(Timestamp(milliseconds: 0), oldest ?? Timestamp(milliseconds: 0))
        var audit = SyncAudit(client: client, cache: cache, pageSize: pageSize, requestBudget: auditBudget)
        let complete = try await audit.reconcile(sensorId: sensor.id, from: from.milliseconds,
                                                 through: through.milliseconds)
        summary.sensorsAudited += 1
        summary.requests += audit.requests
        summary.readingsRefetched += audit.refetched
        summary.readingsDropped += audit.dropped
        // Cut short by its budget, it goes on at the next sync.
        if complete { try cacheStep { try cache.setAuditedAt(now, sensorId: sensor.id) } }
    }
}

/// A cache call, its error as a `SyncError`.
func cacheStep<T>(_ body: () throws -> T) throws(SyncError) -> T {
    do { return try body() } catch { throw .cache(String(describing: error)) }
}
