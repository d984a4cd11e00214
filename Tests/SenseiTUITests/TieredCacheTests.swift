import Foundation
import GRDB
import SenseiModels
@testable import SenseiServer
import Testing
import SenseiTestSupport
@testable import SenseiTUI
@testable import SenseiClient

/// The cache at a year's scale, against the real server: raw readings only
/// for the raw window, the server's minute aggregates for the middle window,
/// hours beyond; every range still adds up to what the server's readings say.
@Suite struct TieredCacheTests {
    let now = Timestamp.now().milliseconds
    let minute: Int64 = 60_000
    let day: Int64 = 86_400_000

    func clock(_ offset: Int64 = 0) -> @Sendable () -> Timestamp {
        let time = Timestamp(milliseconds: now + offset)
        return { time }
    }

    /// Count, min, max and mean of the server's readings in [from, through], computed from the readings themselves.
    func truth(_ server: LiveServer, _ code: String, from: Int64, through: Int64) throws -> (count: Int, min: Double, max: Double, mean: Double) {
        let readings = try server.application.store.readings(of: .code(code), ReadingQuery(
            after: Timestamp(milliseconds: from), before: Timestamp(milliseconds: through), limit: 10_000_000,
            ascending: true)).1.map(\.value)
        return (readings.count, readings.min() ?? .nan, readings.max() ?? .nan,
                readings.reduce(0, +) / Double(max(1, readings.count)))
    }

    /// Every range's statistics and chart from the cache equal the server's readings over the same window.
    func expectRangesAddUp(_ cache: SensorCache, _ server: LiveServer, code: String, at time: Int64,
                           sourceLocation: SourceLocation = #_sourceLocation) throws {
        let id = try #require(try cache.sensor(code: code)?.id)
        for range in [TimeRange.hour, .day, .week, .month, .all] {
            let detail = try #require(try cache.detail(sensorId: id, range: range, now: Timestamp(milliseconds: time)))
            let expected = try truth(server, code, from: detail.start.milliseconds, through: detail.end.milliseconds)
            guard expected.count > 0 else {
                #expect(detail.statistics == nil, "\(range)", sourceLocation: sourceLocation)
                continue
            }
            let statistics = try #require(detail.statistics, "\(range)", sourceLocation: sourceLocation)
            #expect(statistics.count == expected.count, "\(range)", sourceLocation: sourceLocation)
            #expect(statistics.min.value == expected.min && statistics.max.value == expected.max, "\(range)",
                    sourceLocation: sourceLocation)
            #expect(abs(statistics.mean - expected.mean) <= 1e-9 * max(1, abs(expected.mean)), "\(range)",
                    sourceLocation: sourceLocation)
            // The chart holds every reading of the window, whatever level it reads.
            let charted = detail.series.counts?.reduce(0, +) ?? detail.series.count
            #expect(charted == expected.count, "\(range) chart", sourceLocation: sourceLocation)
        }
    }

    @Test func aFreshCacheKeepsRawReadingsOnlyForTheRawWindow() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                // 20 days of a reading a minute, seeded random values with two decimals.
                var random = SplitMix64(seed: 20_251_123)
                let readings = series(count: 20 * 1_440, every: minute, last: now - minute) { _ in
                    Double(Int.random(in: -2_000...3_500, using: &random)) / 100
                }
                try await server.post("porch", readings)
                let cache = try scratch.openCache()
                let syncer = Syncer(client: server.client(), cache: cache, rawDays: 2, minuteDays: 5)
                let first = try await syncer.sync(now: clock())
                // Two days raw (plus the hour the window starts on), not twenty.
                #expect(first.readingsFetched <= 2 * 1_440 + 60)
                #expect(first.readingsFetched >= 2 * 1_440)
                #expect(first.aggregatesFetched > 0)
                let id = try #require(try cache.sensor(code: "porch")?.id)
                let rawFrom = try #require(try cache.coverage(sensorId: id).rawFrom)
                #expect(try #require(try cache.oldestTimestamp(sensorId: id)).milliseconds >= rawFrom)
                try expectRangesAddUp(cache, server, code: "porch", at: now)

                // Late readings beyond the raw window (in the minute and the hour tiers)
                // reach the cache through the audit, as the server's aggregates.
                try await server.post("porch", [(now - 4 * day + 30_000, 99.5), (now - 12 * day + 30_000, -40.25)])
                let audited = Syncer(client: server.client(), cache: cache, auditInterval: 0, rawDays: 2, minuteDays: 5)
                let second = try await audited.sync(now: clock(1_000))
                #expect(second.sensorsAudited == 1)
                try expectRangesAddUp(cache, server, code: "porch", at: now + 1_000)
            }
        }
    }

    @Test func rawReadingsAgeIntoAggregatesAsTheWindowMoves() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                try await server.post("porch", series(count: 6 * 1_440, every: minute, last: now - minute) { Double($0 % 97) / 4 })
                let cache = try scratch.openCache()
                let syncer = Syncer(client: server.client(), cache: cache, rawDays: 2, minuteDays: 4)
                _ = try await syncer.sync(now: clock())
                let id = try #require(try cache.sensor(code: "porch")?.id)
                let before = try cache.readingCount(sensorId: id)

                // A day later (nothing new posted): the raw window has moved on a day.
                let later = try await syncer.sync(now: clock(day))
                #expect(later.readingsAged >= 1_380 && later.readingsAged <= 1_440 + 60)
                #expect(try cache.readingCount(sensorId: id) == before - later.readingsAged)
                let rawFrom = try #require(try cache.coverage(sensorId: id).rawFrom)
                #expect(rawFrom >= now + day - 2 * day - 3_600_000)
                try expectRangesAddUp(cache, server, code: "porch", at: now + day)

                // Offline, everything cached still draws.
                let offline = Syncer(client: APIClient(baseURL: URL(string: "http://127.0.0.1:9")!, token: "x", timeout: 2),
                                     cache: cache, rawDays: 2, minuteDays: 4)
                await #expect(throws: SyncError.self) { _ = try await offline.sync(now: clock(day)) }
                try expectRangesAddUp(cache, server, code: "porch", at: now + day)
            }
        }
    }

    /// A cache of the previous version (5-minute rollups) opens upgraded in
    /// place: its readings kept, its rollups rebuilt as minutes and hours,
    /// and one line saying so.
    @Test func aVersionThreeCacheIsUpgradedInPlace() async throws {
        try await withScratch { scratch in
            let file = try DatabaseQueue(path: scratch.cachePath)
            try await file.write { db in
                try db.execute(sql: """
                    CREATE TABLE sensors (id INTEGER PRIMARY KEY, code TEXT NOT NULL, name TEXT NOT NULL,
                        units TEXT NOT NULL, value_type TEXT NOT NULL, created_at INTEGER NOT NULL,
                        updated_at INTEGER NOT NULL, latest_ts INTEGER, latest_value REAL, count INTEGER NOT NULL,
                        position INTEGER NOT NULL, audited_at INTEGER, labels TEXT NOT NULL DEFAULT '{}');
                    CREATE INDEX sensors_code ON sensors(code);
                    CREATE TABLE readings (sensor_id INTEGER NOT NULL REFERENCES sensors(id) ON DELETE CASCADE,
                        ts INTEGER NOT NULL, value REAL NOT NULL, PRIMARY KEY (sensor_id, ts)) WITHOUT ROWID;
                    CREATE TABLE rollups (sensor_id INTEGER NOT NULL REFERENCES sensors(id) ON DELETE CASCADE,
                        level INTEGER NOT NULL, start INTEGER NOT NULL, count INTEGER NOT NULL, sum REAL NOT NULL,
                        min REAL NOT NULL, min_ts INTEGER NOT NULL, max REAL NOT NULL, max_ts INTEGER NOT NULL,
                        PRIMARY KEY (sensor_id, level, start)) WITHOUT ROWID;
                    CREATE TABLE metadata (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
                    INSERT INTO sensors VALUES (7, 'porch', 'Porch', '°C', 'float', 0, 0, NULL, NULL, 0, 0, NULL, '{"room":"outside"}');
                    -- An old 5-minute rollup, to be replaced.
                    INSERT INTO rollups VALUES (7, 0, 0, 1, 1, 1, 0, 1, 0);
                    PRAGMA user_version = 3;
                    """)
                for (index, reading) in series(count: 600, every: 30_000, last: now - minute).enumerated() {
                    try db.execute(sql: "INSERT INTO readings VALUES (7, ?, ?)", arguments: [reading.0, Double(index % 13)])
                }
            }
            try file.close()
            let upgraded = try scratch.openCache()
            #expect(upgraded.upgradeNote == "cache upgraded from version 3 to \(CacheSchema.version) in place; nothing cached was lost")
            #expect(try upgraded.readingCount(sensorId: 7) == 600)
            #expect(try upgraded.sensors().first?.labels == ["room": "outside"])
            try expectRollupsMatchReadings(upgraded, sensorId: 7)
            // Opened again: nothing to say.
            try upgraded.close()
            #expect(try scratch.openCache().upgradeNote == nil)
        }
    }
}
