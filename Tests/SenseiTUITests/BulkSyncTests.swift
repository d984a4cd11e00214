import Foundation
import SenseiModels
@testable import SenseiServer
import Testing
import SenseiTestSupport
@testable import SenseiTUI
@testable import SenseiClient

/// A house of many sensors syncs in a few requests (`GET /readings`,
/// `GET /aggregates`), not one or more a sensor, against the real server.
@Suite struct BulkSyncTests {
    let now = Timestamp.now().milliseconds
    let minute: Int64 = 60_000
    let hour: Int64 = 3_600_000
    let day: Int64 = 86_400_000

    func series(count: Int, every: Int64, last: Int64, value: (Int) -> Double = { Double($0) }) -> [(Int64, Double)] {
        (0..<count).map { index in (last - Int64(count - 1 - index) * every, value(index)) }
    }

    func clock(_ offset: Int64 = 0) -> @Sendable () -> Timestamp {
        let time = Timestamp(milliseconds: now + offset)
        return { time }
    }

    /// Every reading the server has of `code`, oldest first.
    func stored(_ server: LiveServer, _ code: String) throws -> [Reading] {
        try server.application.store.readings(of: .code(code), ReadingQuery(limit: 1_000_000, ascending: true)).1
    }

    func cached(_ cache: SensorCache, _ code: String) throws -> [Reading] {
        let id = try #require(try cache.sensor(code: code)?.id)
        return try cache.readings(sensorId: id, range: .all, before: Timestamp(milliseconds: now + day),
                                  limit: 1_000_000, now: Timestamp(milliseconds: now)).reversed()
    }

    /// Ten sensors whose history fits the raw window, two with three weeks of it.
    func house(_ server: LiveServer) throws -> (recent: [String], old: [String]) {
        let recent = (1...10).map { "probe_\($0)" }
        for (index, code) in recent.enumerated() {
            try server.post(code, series(count: 20 + index, every: 30_000, last: now - minute, value: { Double($0 % 7) }))
        }
        let old = ["meter_a", "meter_b"]
        for code in old {
            try server.post(code, series(count: 21 * 24, every: hour, last: now - 10 * minute, value: { Double($0 % 13) }))
        }
        return (recent, old)
    }

    @Test func aNewCacheOfManySensorsTakesAFewRequests() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                let (recent, old) = try house(server)
                let cache = try scratch.openCache()
                let syncer = Syncer(client: server.client(), cache: cache)
                let summary = try await syncer.sync(now: clock())
                // The list, one page of readings, one of minutes, one of hours.
                #expect(summary.requests == 4)
                #expect(summary.sensorsAdded == 12)
                for code in recent {
                    #expect(try cached(cache, code) == stored(server, code))
                    let id = try #require(try cache.sensor(code: code)?.id)
                    try expectRollupsMatchReadings(cache, sensorId: id)
                }
                let rawFrom = syncer.windows(at: Timestamp(milliseconds: now)).rawFrom
                for code in old {
                    let id = try #require(try cache.sensor(code: code)?.id)
                    // Raw readings for the window, the rest as minutes and hours: every reading counted.
                    #expect(try cached(cache, code) == stored(server, code).filter { $0.timestamp >= rawFrom })
                    #expect(try cache.readingCount(sensorId: id, through: Timestamp(milliseconds: now)) == 21 * 24)
                }
                // Nothing changed: the list answers 304, and no sensor is touched.
                let idle = try await syncer.sync(now: clock(minute))
                #expect(idle.requests == 1)
                #expect(idle.readingsFetched == 0)
                #expect(idle.sensorsAudited == 0)
            }
        }
    }

    @Test func manySensorsBehindCatchUpInOneRead() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                let (recent, old) = try house(server)
                let cache = try scratch.openCache()
                let syncer = Syncer(client: server.client(), cache: cache)
                _ = try await syncer.sync(now: clock())
                for code in recent + old {
                    try await server.post(code, series(count: 3, every: 1_000, last: now + 5_000, value: { 100 + Double($0) }))
                }
                let summary = try await syncer.sync(now: clock(10_000))
                #expect(summary.readingsFetched == 36)
                // The list and one page of every sensor's new readings.
                #expect(summary.requests == 2)
                for code in recent { #expect(try cached(cache, code) == stored(server, code)) }
            }
        }
    }

    @Test func pagesSplitSensorsAndLoseNothing() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                let (recent, old) = try house(server)
                let cache = try scratch.openCache()
                let summary = try await Syncer(client: server.client(), cache: cache, bulkPageSize: 7).sync(now: clock())
                #expect(summary.requests > 20)
                for code in recent { #expect(try cached(cache, code) == stored(server, code)) }
                for code in old {
                    let id = try #require(try cache.sensor(code: code)?.id)
                    #expect(try cache.readingCount(sensorId: id, through: Timestamp(milliseconds: now)) == 21 * 24)
                }
            }
        }
    }
}
