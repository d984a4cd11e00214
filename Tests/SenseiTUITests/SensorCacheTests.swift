import Foundation
import GRDB
import SenseiModels
import SenseiTestSupport
import Testing
@testable import SenseiTUI
@testable import SenseiClient

/// The cache on its own: files, schema, order, and the figures the screens show.
@Suite struct SensorCacheTests {
    /// Not aligned to any rollup granule, so every window has ragged edges.
    let now: Int64 = 1_736_424_123_457
    let minute: Int64 = 60_000

    func sensor(_ id: Int64, _ code: String) -> Sensor {
        Sensor(id: id, code: code, name: code.capitalized, units: "°C", valueType: .float,
               createdAt: Timestamp(milliseconds: 0), updatedAt: Timestamp(milliseconds: 0), latest: nil, count: 0)
    }

    func withCache<T>(_ body: (SensorCache) async throws -> T) async throws -> T {
        // Some tests fill the cache with a year of readings and query it
        // span by span: seconds of blocking work, off the pool.
        try await offThePool { try await withScratch { scratch in try await body(try scratch.openCache()) } }
    }

    func readings(_ pairs: [(Int64, Double)]) -> [Reading] {
        pairs.map { Reading(timestamp: Timestamp(milliseconds: $0.0), value: $0.1) }
    }

    @Test func fileNamesComeFromHostAndPort() {
        #expect(CachePath.fileName(for: URL(string: "http://localhost:3000")!) == "localhost_3000.sqlite")
        #expect(CachePath.fileName(for: URL(string: "https://sensors.example.org")!) == "sensors.example.org_443.sqlite")
        #expect(CachePath.fileName(for: URL(string: "http://lab:8080/sensei/")!) == "lab_8080_sensei.sqlite")
        #expect(CachePath.fileName(for: URL(string: "http://..%2F..:80/x")!).allSatisfy { $0 != "/" })
    }

    @Test func directoryFollowsXDGElseHome() {
        #expect(CachePath.directory(environment: ["XDG_CACHE_HOME": "/x/cache", "HOME": "/home/u"]) == "/x/cache/sensei")
        #expect(CachePath.directory(environment: ["XDG_CACHE_HOME": "relative", "HOME": "/home/u"])
                == "/home/u/.cache/sensei")
        #expect(CachePath.directory(environment: ["HOME": "/home/u"]) == "/home/u/.cache/sensei")
    }

    @Test func schemaIsVersionedAndReadingsAreClustered() async throws {
        try await withScratch { scratch in
            let cache = try scratch.openCache()
            try cache.pool.read { db throws in
                #expect(try Int.fetchOne(db, sql: "PRAGMA user_version") == CacheSchema.version)
                let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'readings'")
                #expect(sql?.contains("WITHOUT ROWID") == true)
            }
            try cache.mergeSensors([sensor(1, "a")])
            try cache.pool.write { db in try db.execute(sql: "PRAGMA user_version = 99") }
            try cache.close()
            // A file from a newer sensei is only a cache: it is rebuilt empty.
            let reopened = try scratch.openCache()
            #expect(try reopened.sensors().isEmpty)
        }
    }

    @Test func newSensorsJoinTheEndOfTheSavedOrder() async throws {
        try await withCache { cache in
            try cache.mergeSensors([sensor(1, "a"), sensor(2, "b"), sensor(3, "c")])
            try cache.saveOrder([3, 1])
            #expect(try cache.sensors().map(\.id) == [3, 1, 2])
            let merge = try cache.mergeSensors([sensor(5, "e"), sensor(4, "d"), sensor(3, "c"), sensor(2, "b")])
            #expect(merge == SensorMerge(added: [4, 5], removed: [1]))
            #expect(try cache.sensors().map(\.id) == [3, 2, 4, 5])
        }
    }

    /// A sensor's kind is cached as the server lists it, and follows its changes.
    @Test func kindsAreKeptAndFollowTheServer() async throws {
        try await withScratch { scratch in
            var meter = sensor(2, "meter")
            meter.kind = .counter
            let cache = try scratch.openCache()
            try cache.mergeSensors([sensor(1, "a"), meter])
            #expect(try cache.sensors().map(\.kind) == [.gauge, .counter])
            #expect(try cache.listedSensors().map(\.kind) == [.gauge, .counter])
            #expect(try cache.sensor(code: "meter")?.kind == .counter)
            try cache.close()
            let reopened = try scratch.openCache()
            #expect(try reopened.sensor(id: 2)?.kind == .counter)
            meter.kind = .gauge
            try reopened.mergeSensors([sensor(1, "a"), meter])
            #expect(try reopened.sensor(id: 2)?.kind == .gauge)
            try reopened.close()
        }
    }

    @Test func detailOfKnownReadingsMatchesHandComputedFigures() async throws {
        try await withCache { cache in
            try cache.mergeSensors([sensor(1, "porch")])
            let times = [120, 50, 40, 30, 20, 10].map { now - Int64($0) * minute }
            try cache.insertReadings(readings(Array(zip(times, [100, 3, 7, 1, 9, 5]))), sensorId: 1)

            let hour = try #require(try cache.detail(sensorId: 1, range: .hour, now: Timestamp(milliseconds: now)))
            #expect(hour.start.milliseconds == now - 60 * minute)
            #expect(hour.end.milliseconds == now)
            let statistics = try #require(hour.statistics)
            #expect(statistics.count == 5)
            #expect(statistics.min == Reading(timestamp: Timestamp(milliseconds: times[3]), value: 1))
            #expect(statistics.max == Reading(timestamp: Timestamp(milliseconds: times[4]), value: 9))
            #expect(statistics.mean == 5)
            #expect(statistics.oldest.milliseconds == times[1])
            #expect(statistics.newest.milliseconds == times[5])
            #expect(hour.series == TimeSeries(timestamps: Array(times[1...]), values: [3, 7, 1, 9, 5]))
            #expect(hour.readings.map(\.value) == [5, 9, 1, 7, 3])
            #expect(hour.totalReadings == 5)
            // Gaps of 70, 10, 10, 10 and 10 minutes.
            #expect(hour.usualInterval == 10 * minute)

            let day = try #require(try cache.detail(sensorId: 1, range: .day, now: Timestamp(milliseconds: now)))
            #expect(day.statistics?.count == 6)
            #expect(day.statistics?.max.value == 100)
            #expect(day.statistics?.mean == 125.0 / 6)
            let all = try #require(try cache.detail(sensorId: 1, range: .all, now: Timestamp(milliseconds: now)))
            #expect(all.start.milliseconds == times[0])
        }
    }

    @Test func tiesGoToTheEarliestReadingAndRewritesReplace() async throws {
        try await withCache { cache in
            try cache.mergeSensors([sensor(1, "porch")])
            let times = (1...4).map { now - Int64($0) * minute }.reversed().map { $0 }
            try cache.insertReadings(readings(Array(zip(times, [2, 1, 1, 2]))), sensorId: 1)
            var statistics = try #require(try cache.statistics(
                sensorId: 1, from: Timestamp(milliseconds: now - 3_600_000), through: Timestamp(milliseconds: now)))
            #expect(statistics.min.timestamp.milliseconds == times[1])
            #expect(statistics.max.timestamp.milliseconds == times[0])
            // The same timestamp again is one reading with the later value.
            try cache.insertReadings(readings([(times[1], 8)]), sensorId: 1)
            statistics = try #require(try cache.statistics(
                sensorId: 1, from: Timestamp(milliseconds: now - 3_600_000), through: Timestamp(milliseconds: now)))
            #expect(statistics.count == 4)
            #expect(statistics.max == Reading(timestamp: Timestamp(milliseconds: times[1]), value: 8))
            #expect(statistics.min.timestamp.milliseconds == times[2])
        }
    }

    @Test func readingsPageBackwardsThroughTheWindow() async throws {
        try await withCache { cache in
            try cache.mergeSensors([sensor(1, "porch")])
            let all = series(count: 1_234, every: 2_000, last: now - 500)
            try cache.insertReadings(readings(all), sensorId: 1)
            let detail = try #require(try cache.detail(sensorId: 1, range: .hour, now: Timestamp(milliseconds: now)))
            #expect(detail.readings.count == SensorCache.firstTablePage)
            var collected = detail.readings
            while let last = collected.last {
                let page = try cache.readings(sensorId: 1, range: .hour, before: last.timestamp, limit: 300,
                                              now: Timestamp(milliseconds: now))
                if page.isEmpty { break }
                collected += page
            }
            let inWindow = all.filter { $0.0 >= now - 3_600_000 }
            #expect(collected.count == detail.totalReadings)
            #expect(collected.map(\.timestamp.milliseconds) == inWindow.reversed().map(\.0))
        }
    }

    @Test func sparklineIsBucketedForBusySensors() async throws {
        try await withCache { cache in
            try cache.mergeSensors([sensor(1, "busy"), sensor(2, "slow")])
            try cache.insertReadings(readings(series(count: 3_000, every: 30_000, last: now - 1_000)), sensorId: 1)
            try cache.insertReadings(readings(series(count: 30, every: 3_600_000, last: now - 1_000)), sensorId: 2)
            let summaries = try cache.sensorSummaries(now: Timestamp(milliseconds: now))
            #expect(summaries.map(\.id) == [1, 2])
            let busy = summaries[0].recent, slow = summaries[1].recent
            #expect(busy.isAggregated)
            #expect(busy.counts?.reduce(0, +) == 2_880)
            #expect(busy.count <= 289)
            #expect(summaries[0].usualInterval == 30_000)
            #expect(!slow.isAggregated)
            #expect(slow.count == 24)
            #expect(summaries[1].usualInterval == 3_600_000)
            #expect(summaries[0].sensor.latest?.timestamp.milliseconds == now - 1_000)
        }
    }
}
