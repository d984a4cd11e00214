import SenseiModels

/// Finds what an incremental sync cannot see: readings posted late with
/// older timestamps, values replaced on a cached timestamp, readings the
/// server no longer has (a restore from an older backup). It compares a
/// window of one sensor span by span, the server's buckets against the
/// cache's rollups, and refetches only the spans that differ, at the level
/// the cache keeps there (`Coverage`): readings in the raw window, the
/// server's minutes or hours beyond it. A raw span too full to fetch in one
/// page is compared again, cut finer.
struct SyncAudit {
    let client: APIClient
    let cache: SensorCache
    let pageSize: Int
    /// Requests this audit may make; a larger repair goes on at the next.
    let requestBudget: Int
    private(set) var requests = 0
    private(set) var refetched = 0
    private(set) var dropped = 0

    /// How far a span's mean may stray from the server's before it counts as
    /// different: both sides add up the same numbers, in other orders.
    static let meanTolerance = 1e-9

    /// How many times a span is cut finer before it is fetched whole anyway.
    static let maximumDepth = 4

    init(client: APIClient, cache: SensorCache, pageSize: Int, requestBudget: Int) {
        self.client = client
        self.cache = cache
        self.pageSize = pageSize
        self.requestBudget = requestBudget
    }

    /// Makes the cache's readings of [from, through] those of the server.
    /// False when the request budget ran out first.
    mutating func reconcile(sensorId: Int64, from: Int64, through: Int64,
                            depth: Int = 0) async throws(SyncError) -> Bool {
        guard from <= through else { return true }
        let coverage = try cacheStep { try cache.coverage(sensorId: sensorId) }
        // Spans the cache can add up: whole granules of what it keeps at `from`.
        let grid = AuditGrid(from: from, through: through,
                             minimumSpan: coverage.finestLevel(at: from)?.width ?? 1)
        guard spend() else { return false }
        let buckets: [Bucket]
        do {
            buckets = try await client.buckets(sensorId: sensorId, after: Timestamp(milliseconds: grid.start),
                                               before: Timestamp(milliseconds: grid.end), count: grid.count)
        } catch {
            throw .server(error)
        }
        var server = [Bucket?](repeating: nil, count: grid.count)
        for bucket in buckets {
            let index = grid.index(of: bucket.timestamp.milliseconds)
            guard server.indices.contains(index) else {
                throw .server(.invalidResponse("a bucket at \(bucket.timestamp) is outside the range asked for"))
            }
            server[index] = bucket
        }
        let cached = try cacheStep { try cache.spanAggregates(sensorId: sensorId, grid: grid) }
        let differing = (0..<grid.count).filter { !Self.same(server[$0], cached[$0]) }
        for run in runs(of: differing, serverCounts: server.map { $0?.count ?? 0 }) {
            var first = grid.first(ofSpan: run.lowerBound)
            let last = grid.last(ofSpan: run.upperBound)
            // Beyond the raw window: the server's rows, as the backfill fetched them.
            for (level, end) in [(RollupLevel.hour, coverage.minuteFrom), (RollupLevel.minute, coverage.rawFrom)] {
                guard let end, first < end else { continue }
                guard try await refetchAggregates(sensorId: sensorId, level: level, from: first,
                                                  through: min(last, end - 1)) else { return false }
                first = end
            }
            guard first <= last else { continue }
            let complete: Bool
            if run.count == 1, (server[run.lowerBound]?.count ?? 0) > pageSize, grid.span > 1,
               depth < Self.maximumDepth {
                complete = try await reconcile(sensorId: sensorId, from: first, through: last, depth: depth + 1)
            } else {
                complete = try await refetch(sensorId: sensorId, from: first, through: last)
            }
            guard complete else { return false }
        }
        return true
    }

    /// The differing spans grouped for fetching: consecutive spans (matching
    /// ones between included) while the server holds at most a page of
    /// readings in them, so a few stray readings cost one request, not one
    /// each.
    private func runs(of differing: [Int], serverCounts: [Int]) -> [ClosedRange<Int>] {
        var runs: [ClosedRange<Int>] = []
        var current: ClosedRange<Int>?
        var held = 0
        for index in differing {
            if let run = current {
                let added = serverCounts[(run.upperBound + 1)...index].reduce(0, +)
                if held + added <= pageSize {
                    current = run.lowerBound...index
                    held += added
                    continue
                }
                runs.append(run)
            }
            current = index...index
            held = serverCounts[index]
        }
        if let current { runs.append(current) }
        return runs
    }

    /// Fetches every reading of [from, through] and puts them in the cache in
    /// place of what it held there.
    private mutating func refetch(sensorId: Int64, from: Int64, through: Int64) async throws(SyncError) -> Bool {
        var readings: [Reading] = []
        var after = from
        while true {
            guard spend() else { return false }
            let page: [Reading]
            do {
                page = try await client.readings(sensorId: sensorId, after: Timestamp(milliseconds: after),
                                                 before: Timestamp(milliseconds: through), limit: pageSize)
            } catch {
                throw .server(error)
            }
            readings += page
            guard page.count >= pageSize, let last = page.last?.timestamp.milliseconds, last < through else { break }
            after = last + 1
        }
        let gone = try cacheStep {
            try cache.replaceReadings(sensorId: sensorId, from: from, through: through, with: readings)
        }
        refetched += readings.count
        dropped += gone
        return true
    }

    /// Fetches the server's rows of `level` starting in [from, through] and
    /// puts them in the cache in place of what it held there.
    private mutating func refetchAggregates(sensorId: Int64, level: RollupLevel, from: Int64,
                                            through: Int64) async throws(SyncError) -> Bool {
        guard from <= through else { return true }
        let copy = AggregateCopy(client: client, cache: cache, pageSize: pageSize)
        let result = try await copy.run(sensorId: sensorId, level: level, from: from, through: through) { spend() }
        refetched += result.stored
        return result.complete
    }

    private mutating func spend() -> Bool {
        guard requests < requestBudget else { return false }
        requests += 1
        return true
    }

    /// Whether the server's bucket and the cache's aggregate of one span hold
    /// the same readings: the same count and extremes (exact: they are
    /// readings), and the same mean up to rounding.
    static func same(_ server: Bucket?, _ cached: SpanAggregate?) -> Bool {
        switch (server, cached) {
        case (nil, nil):
            return true
        case let (server?, cached?):
            return server.count == cached.count && server.min == cached.min && server.max == cached.max
                && abs(server.mean - cached.mean) <= meanTolerance * max(1, abs(server.mean))
        default:
            return false
        }
    }
}
