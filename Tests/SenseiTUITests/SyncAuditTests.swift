import Foundation
import GRDB
import SenseiModels
@testable import SenseiServer
import Testing
import SenseiTestSupport
@testable import SenseiTUI
@testable import SenseiClient

/// What "only newer readings" misses, found against the real server: late
/// readings, replaced values, readings the server lost, and retention.
@Suite struct SyncAuditTests {
    let now = Timestamp.now().milliseconds
    let minute: Int64 = 60_000
    let day: Int64 = 86_400_000

    /// Every cached reading of `code`, oldest first.
    func cached(_ cache: SensorCache, _ code: String) throws -> [Reading] {
        let id = try #require(try cache.sensor(code: code)?.id)
        return try cache.readings(sensorId: id, range: .all, before: Timestamp(milliseconds: now + day),
                                  limit: 1_000_000, now: Timestamp(milliseconds: now)).reversed()
    }

    /// Every reading the server has for `code`, oldest first.
    func stored(_ server: LiveServer, _ code: String) throws -> [Reading] {
        try server.application.store.readings(of: .code(code), ReadingQuery(limit: 1_000_000, ascending: true)).1
    }

    func clock(_ offset: Int64 = 0) -> @Sendable () -> Timestamp {
        let time = Timestamp(milliseconds: now + offset)
        return { time }
    }

    @Test func lateReadingsOlderThanTheNewestAreFetchedAtOnce() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                // A month of a reading every 30 s, minus three that come late.
                var readings = series(count: 86_400, every: 30_000, last: now - minute, value: { sin(Double($0) / 50) })
                let late = [readings.remove(at: 1_000), readings.remove(at: 40_000), readings.remove(at: 80_000)]
                try await server.post("porch", readings)
                try await server.post("garage", series(count: 10, every: 60_000, last: now - minute))
                let cache = try scratch.openCache()
                // Readings kept raw for the whole month: the audit of readings is what is tested here.
                let syncer = Syncer(client: server.client(), cache: cache, rawDays: 40)
                let first = try await syncer.sync(now: clock())
                #expect(first.readingsFetched == readings.count + 10)
                #expect(first.sensorsAudited == 0)  // fetched whole: nothing to compare

                // The device's buffered readings arrive after a newer one was synced.
                try await server.post("porch", late)
                let second = try await syncer.sync(now: clock(1_000))
                #expect(second.readingsFetched == 0)
                #expect(second.sensorsAudited == 1)  // porch's count disagrees; garage's agrees
                // Each late reading costs the spans around it that the audit
                // merges into one fetch, at most a page of readings (`runs(of:)`
                // stops a run there): 2,880 to 9,044 here, with where the grid
                // cuts the clock at the time of day the test runs. A refetch of
                // the month would be 86,400. (Bounds of 3 × 2,000, 3 × 2,880 and
                // 3 × 3,000 each failed at some time of day.)
                #expect(second.readingsRefetched <= 3 * syncer.pageSize, "refetched \(second.readingsRefetched)")
                #expect(second.readingsDropped == 0)
                #expect(try cached(cache, "porch") == stored(server, "porch"))
                let id = try #require(try cache.sensor(code: "porch")?.id)
                try expectRollupsMatchReadings(cache, sensorId: id)
                print("audit: 3 late readings among \(readings.count) found with \(second.requests - 1) requests,"
                      + " \(second.readingsRefetched) readings refetched")

                let third = try await syncer.sync(now: clock(2_000))
                #expect(third.sensorsAudited == 0)
                #expect(third.requests == 1)
            }
        }
    }

    @Test func aReplacedValueIsFoundByThePeriodicAudit() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                let readings = series(count: 500, every: 60_000, last: now - minute)
                try await server.post("porch", readings)
                let cache = try scratch.openCache()
                let syncer = Syncer(client: server.client(), cache: cache, auditInterval: 15 * minute)
                _ = try await syncer.sync(now: clock())

                // The same timestamp posted again: the later value wins, the count stays.
                try await server.post("porch", [(readings[250].0, 1_000)])
                let soon = try await syncer.sync(now: clock(14 * minute))
                #expect(soon.sensorsAudited == 0)
                #expect(try cached(cache, "porch")[250].value == 250)

                let later = try await syncer.sync(now: clock(15 * minute))
                #expect(later.sensorsAudited == 1)
                // The list, one bucket request, and the differing span's readings in one page.
                #expect(later.requests == 3)
                #expect(later.readingsRefetched >= 1 && later.readingsRefetched <= readings.count)
                #expect(try cached(cache, "porch")[250].value == 1_000)
                #expect(try cached(cache, "porch") == stored(server, "porch"))

                // Audited just now, and nothing differs: one bucket request, nothing fetched.
                let again = try await syncer.sync(now: clock(30 * minute))
                #expect(again.sensorsAudited == 1)
                #expect(again.requests == 2)
                #expect(again.readingsRefetched == 0)
            }
        }
    }

    /// The server restored from an older backup: readings the cache has and
    /// the server lost leave the cache, and what came after is fetched.
    @Test func readingsTheServerLostLeaveTheCache() async throws {
        try await withScratch { scratch in
            let cache = try scratch.openCache()
            let older = series(count: 300, every: 60_000, last: now - 2 * day)
            let lost = series(count: 200, every: 60_000, last: now - day)
            try await withLiveServer(dataDirectory: scratch.root + "/before") { server in
                try await server.post("porch", older + lost)
                _ = try await Syncer(client: server.client(), cache: cache).sync(now: clock())
            }
            #expect(try cached(cache, "porch").count == 500)
            try await withLiveServer(dataDirectory: scratch.root + "/restored") { server in
                try await server.post("porch", older)
                let after = series(count: 5, every: 60_000, last: now - minute)
                try await server.post("porch", after)
                let summary = try await Syncer(client: server.client(), cache: cache).sync(now: clock(minute))
                #expect(summary.readingsFetched == 5)
                #expect(summary.sensorsAudited == 1)
                #expect(summary.readingsDropped == 200)
                #expect(try cached(cache, "porch") == stored(server, "porch"))
                let id = try #require(try cache.sensor(code: "porch")?.id)
                try expectRollupsMatchReadings(cache, sensorId: id)
            }
        }
    }

    @Test func readingsPastTheRetentionLeaveTheCache() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                let readings = series(count: 3 * 24 * 60, every: 60_000, last: now - minute)
                try await server.post("porch", readings)
                let cache = try scratch.openCache()
                let syncer = Syncer(client: server.client(), cache: cache)
                _ = try await syncer.sync(now: clock())
                #expect(try cached(cache, "porch").count == readings.count)

                _ = try server.application.store.updateSensor(.code("porch"), name: nil, units: nil, valueType: nil,
                                                              retentionDays: 1)
                // Whether or not the server has swept yet, the cache keeps the last day only,
                // and an audit does not fetch the expired readings back.
                let summary = try await syncer.sync(now: clock(16 * minute))
                let cutoff = now + 16 * minute - day
                let kept = readings.filter { $0.0 >= cutoff }
                #expect(summary.readingsDropped == readings.count - kept.count)
                #expect(summary.sensorsAudited == 1)
                #expect(summary.readingsRefetched == 0)
                #expect(try cached(cache, "porch").map(\.timestamp.milliseconds) == kept.map(\.0))
                let id = try #require(try cache.sensor(code: "porch")?.id)
                try expectRollupsMatchReadings(cache, sensorId: id)
            }
        }
    }

    /// A repair bigger than one sync's budget goes on at the next syncs and ends exact.
    @Test func aLargeRepairIsSpreadOverSyncs() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                let all = series(count: 20_000, every: 30_000, last: now - minute, value: { Double($0 % 89) })
                let everyOther = all.enumerated().filter { $0.offset % 2 == 0 || $0.offset == all.count - 1 }.map(\.element)
                try await server.post("porch", everyOther)
                let cache = try scratch.openCache()
                let syncer = Syncer(client: server.client(), cache: cache, pageSize: 1_000, auditBudget: 4, rawDays: 10)
                _ = try await syncer.sync(now: clock())
                try await server.post("porch", all)

                var syncs = 0
                while try cached(cache, "porch") != stored(server, "porch") {
                    syncs += 1
                    let summary = try await syncer.sync(now: clock(Int64(syncs)))
                    #expect(summary.requests <= 1 + 4)
                    #expect(summary.sensorsAudited == 1)
                    try #require(syncs < 40, "the repair does not converge")
                }
                #expect(syncs > 1)
                let id = try #require(try cache.sensor(code: "porch")?.id)
                try expectRollupsMatchReadings(cache, sensorId: id)
                // Complete at last: the next audit is not due.
                #expect(try await syncer.sync(now: clock(Int64(syncs + 1))).sensorsAudited == 0)
            }
        }
    }

    /// The grid the audit asks the server for is cut exactly where the
    /// server cuts it, and where the cache's rollups can add it up.
    @Test(arguments: [(0, 0), (5, 17), (0, 299_999), (1, 600_001), (-86_400_000, 86_400_000),
                      (1_736_424_123_457, 1_767_960_123_457), (0, 1_767_960_123_457),
                      (-62_135_596_800_000, 253_402_300_799_999 - 300_000_000)] as [(Int64, Int64)])
    func gridMatchesTheServersSpans(from: Int64, through: Int64) {
        let grid = AuditGrid(from: from, through: through)
        #expect(grid.start <= from && grid.end >= through)
        #expect(grid.count >= 1 && grid.count <= AuditGrid.maximumSpans)
        #expect(grid.start % grid.span == 0)
        if let level = grid.level {
            #expect(grid.span % level.width == 0)
        } else {
            #expect(grid.span < RollupLevel.minute.width)
        }
        let server = BucketSpans(after: grid.start, before: grid.end, count: grid.count)
        for index in [0, 1, grid.count / 2, grid.count - 1] where index < grid.count {
            #expect(server.start(ofSpan: index) == grid.first(ofSpan: index))
            #expect(server.span(of: grid.last(ofSpan: index)) == index)
        }
    }

    /// A version 1 cache (before audits) is upgraded in place: the user's
    /// order and the readings stay.
    @Test func aVersionOneCacheKeepsItsOrderAndReadings() async throws {
        try await withScratch { scratch in
            // A file as sensei wrote it before audits: the sensors table of
            // version 1, the other tables as they still are.
            let v1Sensors = """
                CREATE TABLE sensors (
                    id INTEGER PRIMARY KEY, code TEXT NOT NULL, name TEXT NOT NULL, units TEXT NOT NULL,
                    value_type TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
                    latest_ts INTEGER, latest_value REAL, count INTEGER NOT NULL, position INTEGER NOT NULL
                );
                """
            let rest = try #require(CacheSchema.sql.range(of: "CREATE INDEX sensors_code"))
            let file = try DatabaseQueue(path: scratch.cachePath)
            try file.write { db in
                // (Without the usage table: version 6 adds it.)
                try db.execute(sql: v1Sensors + String(CacheSchema.sql[rest.lowerBound...])
                    .replacingOccurrences(of: CacheSchema.usageReportsTable, with: ""))
                for (id, position) in [(1, 1), (2, 2), (3, 0)] {
                    try db.execute(sql: """
                        INSERT INTO sensors VALUES (?, ?, ?, '', 'float', 0, 0, NULL, NULL, 0, ?)
                        """, arguments: [id, "s\(id)", "S\(id)", position])
                }
                try db.execute(sql: "INSERT INTO readings VALUES (1, ?, 4)", arguments: [now])
                try db.execute(sql: "PRAGMA user_version = 1")
            }
            try file.close()

            let upgraded = try scratch.openCache()
            try upgraded.pool.read { db throws in
                #expect(try Int.fetchOne(db, sql: "PRAGMA user_version") == CacheSchema.version)
            }
            #expect(try upgraded.sensors().map(\.code) == ["s3", "s1", "s2"])
            #expect(try upgraded.readingCount(sensorId: 1) == 1)
            #expect(try upgraded.auditedAt(sensorId: 1) == nil)
            try upgraded.setAuditedAt(Timestamp(milliseconds: now), sensorId: 1)
            #expect(try upgraded.auditedAt(sensorId: 1) == Timestamp(milliseconds: now))
        }
    }
}

/// Every rollup row of the sensor equals its readings added up afresh.
func expectRollupsMatchReadings(_ cache: SensorCache, sensorId: Int64) throws {
    try cache.pool.read { db in
        for level in RollupLevel.allCases {
            let granule = level.width
            var expected = SpanFolder(span: granule, floor: .min)
            try SensorCache.forEach(level: nil, sensorId: sensorId, from: .min, upTo: .max, in: db) { expected.add($0) }
            var actual: [SpanAggregate] = []
            try SensorCache.forEach(level: level, sensorId: sensorId, from: .min, upTo: .max, in: db) { actual.append($0) }
            #expect(actual.count == expected.spans.count, "level \(level)")
            for (row, fresh) in zip(actual, expected.spans) {
                #expect(row.start == fresh.start && row.count == fresh.count && row.min == fresh.min
                        && row.max == fresh.max && abs(row.sum - fresh.sum) <= 1e-6 * max(1, abs(fresh.sum)),
                        "level \(level) at \(row.start)")
            }
        }
    }
}
