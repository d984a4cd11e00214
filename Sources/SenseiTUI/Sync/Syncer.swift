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
public struct Syncer: Sendable {
    public let client: APIClient
    public let cache: SensorCache
    public let pageSize: Int

    public init(client: APIClient, cache: SensorCache, pageSize: Int = APIClient.maximumPageSize) {
        self.client = client
        self.cache = cache
        self.pageSize = max(1, min(pageSize, APIClient.maximumPageSize))
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
            try await syncReadings(of: sensor, into: &summary)
        }
        summary.finishedAt = now()
        try cacheStep { try cache.setLastSync(summary.finishedAt) }
        return summary
    }

    /// Pages through the readings after the newest cached one. The server's
    /// `count` is not trusted to stop early: an empty or short page is the end.
    private func syncReadings(of sensor: Sensor, into summary: inout SyncSummary) async throws(SyncError) {
        // No readings on the server, or none newer than the cache's: no request at all.
        guard let latest = sensor.latest?.timestamp else { return }
        var newest = try cacheStep { try cache.newestTimestamp(sensorId: sensor.id) }
        if let cached = newest, latest <= cached { return }
        while true {
            summary.requests += 1
            let page: [Reading]
            do {
                page = try await client.readings(sensorId: sensor.id, after: newest?.adding(milliseconds: 1),
                                                 limit: pageSize)
            } catch .server(status: 404, _) {
                // Deleted since the list was fetched.
                try cacheStep { try cache.removeSensor(id: sensor.id) }
                summary.sensorsRemoved += 1
                return
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

    private func cacheStep<T>(_ body: () throws -> T) throws(SyncError) -> T {
        do { return try body() } catch { throw .cache(String(describing: error)) }
    }
}
