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
    /// Minute and hour aggregates fetched and stored (history beyond the raw window).
    public var aggregatesFetched = 0
    /// Readings that left the raw window, kept as their minutes and hours.
    public var readingsAged = 0
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
    /// Whether the server's sensor list differed from the one last merged.
    public var listChanged = false

    /// Whether the cache holds anything it did not before.
    public var changedTheCache: Bool {
        listChanged || readingsFetched > 0 || aggregatesFetched > 0 || readingsAged > 0 || readingsRefetched > 0
            || readingsDropped > 0 || sensorsRemoved > 0
    }

    public init() {}
}

/// Why a sync stopped: the server's answer, or the cache refusing a write.
public enum SyncError: Error, Sendable, Equatable {
    case server(SyncFailure)
    case cache(String)
}

/// Brings the cache up to date with the server, incrementally: the sensor
/// list in full (it is small), then sensor by sensor the readings after its
/// newest cached one, oldest first, a page per request and a transaction per
/// page. A sync cut short keeps every page it stored; the next one goes on
/// from there.
///
/// The cache keeps readings only for the raw window (`rawDays`), the
/// server's minute aggregates for `minuteDays`, and hours for all time
/// (`Coverage`). A sensor seen for the first time gets its readings of the
/// raw window first (the list's sparkline), then its history as minutes and
/// hours; later syncs move the windows on, so raw readings age into their
/// minutes and hours and the cache stays bounded however long the server
/// keeps history.
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
    /// Days of raw readings kept; the default is a few days, `--raw-days`.
    public let rawDays: Int
    /// Days of minute aggregates kept (at least `rawDays`); hours are kept for all time.
    public let minuteDays: Int

    /// Sensors audited in one sync at most, so a house of 10,000 sensors
    /// does not audit 300 of them every 30 seconds; the rest wait their turn.
    public let auditsPerSync: Int
    /// Readings or aggregates a page of the bulk routes carries.
    public let bulkPageSize: Int

    public static let defaultRawDays = 3
    public static let defaultMinuteDays = 8
    static let day: Int64 = 86_400_000

    public init(client: APIClient, cache: SensorCache, pageSize: Int = APIClient.maximumPageSize,
                auditInterval: Int64 = 15 * 60_000, auditBudget: Int = 32,
                rawDays: Int = defaultRawDays, minuteDays: Int = defaultMinuteDays, auditsPerSync: Int = 16,
                bulkPageSize: Int = 20_000) {
        self.client = client
        self.cache = cache
        self.pageSize = max(1, min(pageSize, APIClient.maximumPageSize))
        self.auditInterval = auditInterval
        self.auditBudget = max(1, auditBudget)
        self.rawDays = max(1, rawDays)
        self.minuteDays = max(self.rawDays, minuteDays)
        self.auditsPerSync = max(1, auditsPerSync)
        self.bulkPageSize = max(1, min(bulkPageSize, APIClient.maximumBulkPageSize))
    }

    /// `progress(done, total)` after a changed sensor list is merged (0 of n: the
    /// list can show) and after each sensor.
    public func sync(now: @Sendable () -> Timestamp = { .now() },
                     progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }) async throws(SyncError) -> SyncSummary {
        var summary = SyncSummary()
        summary.requests += 1
        let sensors: [Sensor], changed: Bool
        do {
            (sensors, changed) = try await client.sensorList { () throws(SyncFailure) in
                do { return try cache.listedSensors() } catch { throw .cache(String(describing: error)) }
            }
        } catch {
            throw .server(error)
        }
        summary.sensorsSeen = sensors.count
        summary.listChanged = changed
        // The list this client merged last time (304): nothing to merge.
        if changed {
            let merge: SensorMerge
            do { merge = try cache.mergeSensors(sensors) } catch {
                client.forgetSensorList()
                throw .cache(String(describing: error))
            }
            summary.sensorsAdded = merge.added.count
            summary.sensorsRemoved = merge.removed.count
        }
        // The list can show (a new one only: a quiet sync reports nothing,
        // so the dashboard reads nothing back).
        if changed { progress(0, sensors.count) }
        let states = try cacheStep { try cache.syncStates() }
        var done = try await syncInBulk(sensors, states: states, now: now(), into: &summary)
        if !done.isEmpty { progress(done.count, sensors.count) }
        let windows = windows(at: now())
        var audits = auditsPerSync
        for sensor in sensors where !done.contains(sensor.id) {
            let state = states[sensor.id]
            if let state, isQuiet(sensor, state, rawFrom: windows.rawFrom.milliseconds, now: now()) {
                done.insert(sensor.id)
                continue
            }
            do {
                if try await sync(sensor, now: now(), mayAudit: audits > 0, into: &summary) {
                    try cacheStep { try cache.markSynced([sensor]) }
                }
            } catch .server(.server(status: 404, _)) {
                // Deleted since the list was fetched.
                try cacheStep { try cache.removeSensor(id: sensor.id) }
                summary.sensorsRemoved += 1
            }
            audits = auditsPerSync - summary.sensorsAudited
            done.insert(sensor.id)
            progress(done.count, sensors.count)
        }
        summary.finishedAt = now()
        try cacheStep { try cache.setLastSync(summary.finishedAt) }
        return summary
    }

    /// Many sensors new to the cache, or many with newer readings than it
    /// holds: brought up to date through the routes that read every sensor
    /// (`BulkSync`). Returns the sensors it completed; an old server without
    /// those routes (404) leaves them all to the sensor-by-sensor sync.
    private func syncInBulk(_ sensors: [Sensor], states: [Int64: SyncState], now: Timestamp,
                            into summary: inout SyncSummary) async throws(SyncError) -> Set<Int64> {
        let bulk = BulkSync(client: client, cache: cache, pageSize: bulkPageSize)
        let enough = max(BulkSync.threshold, sensors.count / 4)
        var done = Set<Int64>()
        do {
            let fresh = sensors.filter { !(states[$0.id]?.holdsAnything ?? false) && $0.retentionDays == nil }
            if fresh.count >= enough {
                done = try await bulk.start(fresh, windows: windows(at: now), now: now, into: &summary)
            }
            let changed = sensors.compactMap { sensor -> (sensor: Sensor, newest: Int64)? in
                guard !done.contains(sensor.id), let latest = sensor.latest?.timestamp.milliseconds,
                      let newest = states[sensor.id]?.newest, latest > newest else { return nil }
                return (sensor, newest)
            }
            if changed.count >= enough {
                // Up to date now, but aging, audits and retention still go sensor by sensor.
                _ = try await bulk.catchUp(changed, into: &summary)
            }
        } catch .server(.server(status: 404, _)) {
            return done
        }
        return done
    }

    /// Nothing to do for a sensor whose latest reading and count are those
    /// the last sync completed it at, when no audit, retention or move of its
    /// windows is due: a sync of 10,000 quiet sensors reads one list and
    /// touches none of them.
    private func isQuiet(_ sensor: Sensor, _ state: SyncState, rawFrom: Int64, now: Timestamp) -> Bool {
        guard state.holdsAnything || sensor.latest == nil, state.backfilled, sensor.retentionDays == nil,
              state.syncedCount == sensor.count, state.syncedLatest == sensor.latest?.timestamp.milliseconds,
              let audited = state.auditedAt, now.milliseconds - audited < auditInterval else { return false }
        // The raw window moves on once an hour: readings older than it age into their minutes.
        if let from = state.rawFrom { return from >= rawFrom }
        return (state.oldest ?? .max) >= rawFrom
    }

    /// The raw and minute windows' starts as of `now`: whole hours.
    func windows(at now: Timestamp) -> (rawFrom: Timestamp, minuteFrom: Timestamp) {
        let hour = RollupLevel.hour.width
        return (Timestamp(milliseconds: (now.milliseconds - Int64(rawDays) * Self.day).alignedDown(to: hour)),
                Timestamp(milliseconds: (now.milliseconds - Int64(minuteDays) * Self.day).alignedDown(to: hour)))
    }

    /// One sensor: retention, the newer readings, its history (first time) or
    /// the windows moved on, then an audit if one is due.
    /// Returns whether it is settled: false while an audit is due but was cut
    /// short or left to a later sync (`auditsPerSync`).
    private func sync(_ sensor: Sensor, now: Timestamp, mayAudit: Bool,
                      into summary: inout SyncSummary) async throws(SyncError) -> Bool {
        let cutoff = sensor.retentionDays.map { now.adding(milliseconds: -Int64($0) * 86_400_000) }
        if let cutoff {
            summary.readingsDropped += try cacheStep { try cache.trimReadings(sensorId: sensor.id, before: cutoff) }
        }
        let windows = windows(at: now)
        let fresh = try cacheStep { try cache.holdsNothing(sensorId: sensor.id) }
        if fresh {
            try cacheStep { try cache.startTiers(sensorId: sensor.id, rawFrom: windows.rawFrom,
                                                 minuteFrom: windows.minuteFrom) }
        }
        let newest = try cacheStep { try cache.newestTimestamp(sensorId: sensor.id) }
        let coverage = try cacheStep { try cache.coverage(sensorId: sensor.id) }
        let first = newest?.adding(milliseconds: 1) ?? coverage.rawFrom.map(Timestamp.init(milliseconds:))
        try await syncReadings(of: sensor, from: first, newest: newest, into: &summary)
        if try cacheStep({ try !cache.isBackfilled(sensorId: sensor.id) }) {
            // A sensor whose whole history fits the raw window has nothing
            // older to fetch: no aggregate request for it.
            let whole = try cacheStep { try cache.readingCount(sensorId: sensor.id) } == sensor.count
            if whole {
                // Every reading is cached raw: the cache covers everything (no
                // tier to audit before the window) until one ages out.
                try cacheStep { try cache.coverEverything(sensorId: sensor.id) }
            } else {
                try await backfill(sensor, coverage: coverage, into: &summary)
            }
            try cacheStep { try cache.setBackfilled(sensorId: sensor.id) }
            // Fetched whole just now: nothing to compare yet.
            try cacheStep { try cache.setAuditedAt(now, sensorId: sensor.id) }
            return true
        }
        summary.readingsAged += try cacheStep {
            try cache.ageTiers(sensorId: sensor.id, rawFrom: windows.rawFrom, minuteFrom: windows.minuteFrom)
        }
        guard try auditIsDue(sensor, now: now) else { return true }
        return mayAudit ? try await audit(sensor, from: cutoff, now: now, into: &summary) : false
    }

    /// History before the raw window, once: minutes of the middle window,
    /// then hours of everything older, oldest first; a backfill cut short
    /// goes on after the newest row it stored. The caller marks it done.
    private func backfill(_ sensor: Sensor, coverage: Coverage,
                          into summary: inout SyncSummary) async throws(SyncError) {
        guard let rawFrom = coverage.rawFrom, let minuteFrom = coverage.minuteFrom else { return }
        if sensor.latest != nil {
            try await fetchAggregates(of: sensor.id, level: RollupLevel.minute, from: minuteFrom,
                                      through: rawFrom - 1, into: &summary)
            try await fetchAggregates(of: sensor.id, level: RollupLevel.hour, from: Timestamp.range.lowerBound,
                                      through: minuteFrom - 1, into: &summary)
        }
    }

    /// Pages through the server's rows of `level` starting in [from, through]
    /// after the newest already cached there.
    func fetchAggregates(of sensorId: Int64, level: RollupLevel, from: Int64, through: Int64,
                         into summary: inout SyncSummary) async throws(SyncError) {
        guard from <= through else { return }
        let after = try cacheStep {
            try cache.newestRollup(sensorId: sensorId, level: level, from: from, before: through + 1)
        }.map { $0 + 1 } ?? from
        let copy = AggregateCopy(client: client, cache: cache, pageSize: pageSize)
        let result = try await copy.run(sensorId: sensorId, level: level, from: after, through: through) {
            summary.requests += 1
            return true
        }
        summary.aggregatesFetched += result.stored
    }

    /// Pages through the readings from `from` on (nil: the first), after
    /// `newest`, the newest cached one. The server's `count` is not trusted
    /// to stop early: an empty or short page is the end.
    private func syncReadings(of sensor: Sensor, from: Timestamp?, newest: Timestamp?,
                              into summary: inout SyncSummary) async throws(SyncError) {
        // No readings on the server, or none newer than the cache's: no request at all.
        guard let latest = sensor.latest?.timestamp else { return }
        if let cached = newest, latest <= cached { return }
        if let from, latest < from { return }
        var after = from
        while true {
            summary.requests += 1
            let page: [Reading]
            do {
                page = try await client.readings(sensorId: sensor.id, after: after, limit: pageSize)
            } catch {
                throw .server(error)
            }
            guard let last = page.last else { return }
            try cacheStep { try cache.insertReadings(page, sensorId: sensor.id) }
            summary.readingsFetched += page.count
            guard page.count >= pageSize, last.timestamp >= after ?? Timestamp(milliseconds: .min) else { return }
            after = last.timestamp.adding(milliseconds: 1)
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
                       into summary: inout SyncSummary) async throws(SyncError) -> Bool {
        let newest = try cacheStep { try cache.newestTimestamp(sensorId: sensor.id) }
        let oldest = try cacheStep { try cache.oldestTimestamp(sensorId: sensor.id) }
        guard let through = [sensor.latest?.timestamp, newest].compactMap({ $0 }).max() else { return true }
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
        return complete
    }
}

/// A cache call, its error as a `SyncError`.
func cacheStep<T>(_ body: () throws -> T) throws(SyncError) -> T {
    do { return try body() } catch { throw .cache(String(describing: error)) }
}
