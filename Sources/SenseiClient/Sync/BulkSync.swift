import SenseiModels

/// The sync of many sensors at once through the routes that read every
/// sensor (`GET /readings`, `GET /aggregates`): a new dashboard of a house of
/// 10,000 sensors makes tens of requests, not tens of thousands, and so does
/// one that catches up after a while away. What it does not finish (a
/// dropped connection, an old server without these routes) the sensor by
/// sensor sync does: it finds the cache as this left it.
struct BulkSync {
    let client: APIClient
    let cache: SensorCache
    let pageSize: Int

    /// Fewer sensors than this go sensor by sensor: a bulk read of every
    /// sensor's window would carry more than their own requests.
    static let threshold = 8
    /// Sensors catching up together are those whose newest cached reading is
    /// within this of the median's; one far behind goes alone, rather than
    /// making the bulk read carry everyone's readings since its newest.
    static let cohortSpan: Int64 = 3_600_000

    /// The first sync of sensors the cache holds nothing of: their raw
    /// window, then minutes and hours for those with older history, in bulk.
    /// Returns the sensors done.
    func start(_ fresh: [Sensor], windows: (rawFrom: Timestamp, minuteFrom: Timestamp), now: Timestamp,
               into summary: inout SyncSummary) async throws(SyncError) -> Set<Int64> {
        let ids = Set(fresh.map(\.id))
        try cacheStep { try cache.startTiers(sensorIds: fresh.map(\.id), rawFrom: windows.rawFrom,
                                             minuteFrom: windows.minuteFrom) }
        summary.readingsFetched += try await copyReadings(of: ids, after: { _ in windows.rawFrom.milliseconds - 1 },
                                                         from: windows.rawFrom, into: &summary)
        let counts = try cacheStep { try cache.readingCounts() }
        // A sensor whose whole history is in its raw window has nothing older to fetch.
        let whole = Set(fresh.filter { counts[$0.id, default: 0] == $0.count }.map(\.id))
        let older = ids.subtracting(whole)
        if !older.isEmpty {
            try await copyAggregates(of: older, level: RollupLevel.minute, from: windows.minuteFrom.milliseconds,
                                     through: windows.rawFrom.milliseconds - 1, into: &summary)
            try await copyAggregates(of: older, level: RollupLevel.hour, from: nil,
                                     through: windows.minuteFrom.milliseconds - 1, into: &summary)
        }
        try cacheStep { try cache.finishFirstSync(fresh, everything: whole, now: now) }
        return ids
    }

    /// Sensors with readings newer than the cache's newest: those close to
    /// the others' newest in one paged read, after the oldest newest among
    /// them. Returns the sensors brought up to date.
    func catchUp(_ changed: [(sensor: Sensor, newest: Int64)], into summary: inout SyncSummary) async throws(SyncError)
        -> Set<Int64> {
        let sorted = changed.map(\.newest).sorted()
        let median = sorted[sorted.count / 2]
        let cohort = changed.filter { $0.newest >= median - Self.cohortSpan }
        guard cohort.count >= Self.threshold, let oldest = cohort.map(\.newest).min() else { return [] }
        let newest = Dictionary(cohort.map { ($0.sensor.id, $0.newest) }, uniquingKeysWith: { a, _ in a })
        summary.readingsFetched += try await copyReadings(of: Set(newest.keys), after: { newest[$0] ?? .max },
                                                         from: Timestamp(milliseconds: oldest + 1), into: &summary)
        return Set(newest.keys)
    }

    /// Pages through `GET /readings` from `from` on, storing the readings of
    /// `ids` newer than `after(id)`. Returns the readings stored.
    private func copyReadings(of ids: Set<Int64>, after: (Int64) -> Int64, from: Timestamp,
                              into summary: inout SyncSummary) async throws(SyncError) -> Int {
        let client = client, pageSize = pageSize
        @Sendable func fetch(_ cursor: String?) async -> Result<SeriesPage<Reading>, SyncFailure> {
            do throws(SyncFailure) {
                return .success(try await client.bulkReadings(after: from, limit: pageSize, cursor: cursor))
            } catch {
                return .failure(error)
            }
        }
        var stored = 0
        summary.requests += 1
        var pending = Task { await fetch(nil) }
        while true {
            let page: SeriesPage<Reading>
            switch await pending.value {
            case .success(let fetched): page = fetched
            case .failure(let failure): throw .server(failure)
            }
            // The next page crosses the wire while this one goes into the cache.
            if let next = page.next {
                summary.requests += 1
                pending = Task { await fetch(next) }
            }
            let kept = page.series.compactMap { entry -> (sensorId: Int64, readings: [Reading])? in
                guard ids.contains(entry.sensorId) else { return nil }
                let floor = after(entry.sensorId)
                return (entry.sensorId, entry.items.filter { $0.timestamp.milliseconds > floor })
            }
            try cacheStep { try cache.insertReadings(kept) }
            stored += kept.reduce(0) { $0 + $1.readings.count }
            if page.next == nil { return stored }
        }
    }

    /// Pages through `GET /aggregates` of `level` starting in [from, through],
    /// storing the rows of `ids`.
    private func copyAggregates(of ids: Set<Int64>, level: RollupLevel, from: Int64?, through: Int64,
                                into summary: inout SyncSummary) async throws(SyncError) {
        guard from.map({ $0 <= through }) ?? true else { return }
        var cursor: String?
        repeat {
            summary.requests += 1
            let page: SeriesPage<SpanAggregate>
            do {
                page = try await client.bulkAggregates(level: level.name,
                                                       after: from.map(Timestamp.init(milliseconds:)),
                                                       before: Timestamp(milliseconds: through), limit: pageSize,
                                                       cursor: cursor)
            } catch {
                throw .server(error)
            }
            for (sensorId, rows) in page.series where ids.contains(sensorId) {
                guard let first = rows.first, let last = rows.last else { continue }
                summary.aggregatesFetched += try cacheStep {
                    try cache.replaceAggregates(sensorId: sensorId, level: level, from: first.start.milliseconds,
                                                through: last.start.milliseconds, with: rows)
                }
            }
            cursor = page.next
        } while cursor != nil
    }
}
