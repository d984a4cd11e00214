import Foundation
import SenseiModels
import Testing
import SenseiTestSupport
@testable import SenseiTUI
@testable import SenseiClient

/// Sync against the real server on loopback; the summary counts what crossed the wire.
@Suite struct SyncTests {
    let now = Timestamp.now().milliseconds

    @Test func firstSyncFillsTheCache() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                try await server.post("porch", series(count: 10, every: 30_000, last: now - 1_000))
                try await server.post("garage", series(count: 3, every: 60_000, last: now - 5_000))
                let cache = try scratch.openCache()
                let summary = try await Syncer(client: server.client(), cache: cache).sync()
                #expect(summary.sensorsSeen == 2)
                #expect(summary.sensorsAdded == 2)
                #expect(summary.sensorsRemoved == 0)
                #expect(summary.readingsFetched == 13)
                #expect(summary.requests == 3)
                let sensors = try cache.sensors()
                #expect(sensors.map(\.code) == ["porch", "garage"])
                #expect(sensors[0].latest == Reading(timestamp: Timestamp(milliseconds: now - 1_000), value: 9))
                #expect(try cache.readingCount(sensorId: sensors[0].id) == 10)
                #expect(try cache.readingCount(sensorId: sensors[1].id) == 3)
                #expect(try cache.lastSync() == summary.finishedAt)
            }
        }
    }

    @Test func incrementalSyncFetchesOnlyNewReadings() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                try await server.post("porch", series(count: 20, every: 30_000, last: now - 200_000))
                try await server.post("garage", series(count: 4, every: 30_000, last: now - 200_000))
                let cache = try scratch.openCache()
                let syncer = Syncer(client: server.client(), cache: cache)
                #expect(try await syncer.sync().readingsFetched == 24)

                try await server.post("porch", series(count: 5, every: 30_000, last: now - 10_000, value: { 100 + Double($0) }))
                let second = try await syncer.sync()
                #expect(second.readingsFetched == 5)
                // The list, then porch's one page; garage has nothing newer and is not asked.
                #expect(second.requests == 2)
                #expect(second.sensorsAdded == 0)
                let porch = try #require(try cache.sensor(code: "porch"))
                #expect(try cache.readingCount(sensorId: porch.id) == 25)
                #expect(porch.latest?.value == 104)

                let idle = try await syncer.sync()
                #expect(idle.readingsFetched == 0)
                #expect(idle.requests == 1)
            }
        }
    }

    @Test func userOrderSurvivesReopeningAndNewSensorsJoinAtTheEnd() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                for code in ["a", "b", "c"] { try await server.post(code, [(now - 60_000, 1)]) }
                let first = try scratch.openCache()
                _ = try await Syncer(client: server.client(), cache: first).sync()
                let ids = try first.sensors().map(\.id)
                try first.saveOrder([ids[2], ids[0], ids[1]])
                try first.close()

                let reopened = try scratch.openCache()
                #expect(try reopened.sensors().map(\.code) == ["c", "a", "b"])
                try await server.post("d", [(now - 30_000, 2)])
                let summary = try await Syncer(client: server.client(), cache: reopened).sync()
                #expect(summary.sensorsAdded == 1)
                #expect(try reopened.sensors().map(\.code) == ["c", "a", "b", "d"])
                #expect(try reopened.sensorSummaries(now: Timestamp(milliseconds: now)).map(\.sensor.code)
                        == ["c", "a", "b", "d"])
            }
        }
    }

    @Test func sensorsDeletedOnTheServerLeaveTheCache() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                try await server.post("keep", series(count: 3, every: 1_000, last: now - 10_000))
                try await server.post("gone", series(count: 7, every: 1_000, last: now - 10_000))
                let cache = try scratch.openCache()
                let syncer = Syncer(client: server.client(), cache: cache)
                _ = try await syncer.sync()
                let gone = try #require(try cache.sensor(code: "gone"))

                try server.delete("gone")
                let summary = try await syncer.sync()
                #expect(summary.sensorsRemoved == 1)
                #expect(try cache.sensors().map(\.code) == ["keep"])
                #expect(try cache.readingCount(sensorId: gone.id) == 0)
                #expect(try cache.detail(sensorId: gone.id, range: .day, now: Timestamp(milliseconds: now)) == nil)
            }
        }
    }

    @Test func offlineKeepsTheCacheAndRecoversOnTheSameData() async throws {
        try await withScratch { scratch in
            let cache = try scratch.openCache()
            let offlineClient = try await withLiveServer(dataDirectory: scratch.serverData) { server in
                try await server.post("porch", series(count: 6, every: 30_000, last: now - 100_000))
                _ = try await Syncer(client: server.client(), cache: cache).sync()
                return server.client(timeout: 1)
            }
            // The server is gone: the failure says so, and the cache still answers.
            let error = await #expect(throws: SyncError.self) {
                _ = try await Syncer(client: offlineClient, cache: cache).sync()
            }
            guard case .server(let failure)? = error else {
                Issue.record("expected a server failure, got \(String(describing: error))")
                return
            }
            #expect(failure.isOffline)
            let summaries = try cache.sensorSummaries(now: Timestamp(milliseconds: now))
            #expect(summaries.map(\.sensor.code) == ["porch"])
            #expect(summaries[0].recent.count == 6)
            let detail = try #require(try cache.detail(sensorId: summaries[0].id, range: .hour,
                                                      now: Timestamp(milliseconds: now)))
            #expect(detail.statistics?.count == 6)

            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                try await server.post("porch", series(count: 2, every: 30_000, last: now - 1_000))
                let summary = try await Syncer(client: server.client(), cache: cache).sync()
                #expect(summary.readingsFetched == 2)
                #expect(try cache.readingCount(sensorId: summaries[0].id) == 8)
            }
        }
    }

    @Test func wrongTokenFailsAsUnauthorizedAndLeavesTheCache() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                try await server.post("porch", [(now - 1_000, 1)])
                let cache = try scratch.openCache()
                await #expect(throws: SyncError.server(.unauthorized)) {
                    _ = try await Syncer(client: server.client(token: "wrong"), cache: cache).sync()
                }
                #expect(try cache.sensors().isEmpty)
                #expect(try cache.lastSync() == nil)
            }
        }
    }

    @Test func pagesThroughMoreThanOneAnswer() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                let readings = series(count: 25_000, every: 1_000, last: now - 1_000, value: { Double($0 % 97) })
                try await server.post("fast", readings)
                let cache = try scratch.openCache()
                let summary = try await Syncer(client: server.client(), cache: cache).sync()
                #expect(summary.readingsFetched == 25_000)
                // The list, then pages of 10 000, 10 000 and 5 000 (short: the end).
                #expect(summary.requests == 4)
                let id = try #require(try cache.sensor(code: "fast")?.id)
                #expect(try cache.readingCount(sensorId: id) == 25_000)
                let statistics = try #require(try cache.statistics(
                    sensorId: id, from: Timestamp(milliseconds: readings[0].0),
                    through: Timestamp(milliseconds: readings.last!.0)))
                #expect(statistics.count == 25_000)
                #expect(statistics.oldest.milliseconds == readings[0].0)
                #expect(statistics.newest.milliseconds == readings.last!.0)
            }
        }
    }

    @Test func smallPagesEndOnAnEmptyPage() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                try await server.post("porch", series(count: 20, every: 1_000, last: now - 1_000))
                let cache = try scratch.openCache()
                let summary = try await Syncer(client: server.client(), cache: cache, pageSize: 10).sync()
                #expect(summary.readingsFetched == 20)
                // Two full pages, then an empty one says there is no more.
                #expect(summary.requests == 4)
            }
        }
    }
}
