import Foundation
import SenseiModels
import Testing
import SenseiTestSupport
@testable import SenseiTUI
@testable import SenseiClient

/// Usage bars from the cache: fetched from the real server's usage route
/// into the cache, drawn from there with the server stopped, and a server
/// older than the route said to be one, not a crash.
@Suite struct UsageCacheTests {
    static let berlin = try! TimeZoneRules.named("Europe/Berlin")

    /// A plug drawing a steady 100 W, a reading a minute for two hours up to
    /// a minute ago: 100 W × 2 h = 200 Wh, however the hours split it.
    static func postPlug(_ server: LiveServer, now: Int64) throws {
        try server.post("plug", series(count: 121, every: 60_000, last: now - 60_000) { _ in 100 })
        _ = try server.application.store.updateSensor(.code("plug"), name: "Heat pump plug", units: "W", valueType: nil)
    }

    @Test func theBarsShowFromTheCacheWithTheServerStopped() async throws {
        try await withScratch { scratch in
            let now = Timestamp.now()
            let cache = try scratch.openCache()
            let offlineClient = try await withLiveServer(dataDirectory: scratch.serverData) { server in
                try Self.postPlug(server, now: now.milliseconds)
                let syncer = Syncer(client: server.client(), cache: cache)
                _ = try await syncer.sync()
                let sensor = try #require(try cache.sensor(code: "plug"))
                let fetched = try #require(await syncer.syncUsage(for: sensor, range: .day, zone: Self.berlin, now: now))
                let report = try #require(fetched.report)
                #expect(report.interval == .hour && report.units == "Wh" && report.timeZone == "Europe/Berlin")
                #expect(report.usage.count == 24)
                #expect(abs(report.total - 200) < 1e-6)
                #expect(try cache.cachedUsage(sensorId: sensor.id, range: .day, zone: "Europe/Berlin") == fetched)
                return server.client(timeout: 1)
            }
            // The server is gone: the dashboard's commands answer from the cache.
            let collector = MessageCollector()
            let runner = CommandRunner(cache: cache, syncer: Syncer(client: offlineClient, cache: cache),
                                       deliver: collector.deliver)
            var model = AppModel(width: 80, height: 24, now: now, charset: .unicode, serverName: "offline")
            model.zone = Self.berlin
            _ = model.update(.sensorsLoaded(try cache.sensorSummaries(now: now)))
            for command in model.update(.keyPressed(.enter)) {
                guard case .loadDetail(let id, let range) = command else { continue }
                _ = model.update(.detailLoaded(try #require(try cache.detail(sensorId: id, range: range, now: now))))
            }
            let commands = model.update(.keyPressed("u"))
            let sensorId = try #require(try cache.sensor(code: "plug")).id
            #expect(commands == [.loadUsage(sensorId: sensorId, range: .day, zone: Self.berlin)])
            runner.run(commands)
            func usage(_ msg: Msg) -> Msg? { if case .usageLoaded = msg { msg } else { nil } }
            let cached = try await collector.take(usage)
            #expect(cached == .usageLoaded(sensorId: sensorId, range: .day,
                                           usage: try cache.cachedUsage(sensorId: sensorId, range: .day,
                                                                        zone: "Europe/Berlin"), fetching: true))
            _ = model.update(cached)
            let afterFetch = try await collector.take(usage)
            guard case .usageLoaded(_, _, let kept, let fetching) = afterFetch else { return }
            #expect(!fetching && kept?.report?.usage.count == 24)
            _ = model.update(afterFetch)
            let screen = AppView.render(model).text
            #expect(screen.contains("total 200 Wh  per hour, Europe/Berlin"))
            #expect(screen.contains("200 Wh│") || screen.contains("100 Wh│"))
            try cache.close()
        }
    }

    /// A server from before v1.2 answers 404 on the route: remembered as
    /// "no usage here", so offline the bars still say why there are none.
    @Test func aServerWithoutTheRouteIsUnavailableNotAnError() async throws {
        try await withScratch { scratch in
            let old = try CannedHTTPServer(status: 404, body: #"{"error":"not found"}"#)
            defer { old.stop() }
            let cache = try scratch.openCache()
            let sensor = Sensor(id: 9, code: "plug", name: "Plug", units: "W", valueType: .float,
                                createdAt: Fixture.now, updatedAt: Fixture.now, latest: nil, count: 0)
            try cache.mergeSensors([sensor])
            let client = APIClient(baseURL: URL(string: "http://127.0.0.1:\(old.port)")!, token: "t")
            let answer = await Syncer(client: client, cache: cache).syncUsage(for: sensor, range: .week,
                                                                              zone: Self.berlin, now: Fixture.now)
            #expect(answer == CachedUsage(report: nil, fetchedAt: Fixture.now))
            #expect(try cache.cachedUsage(sensorId: 9, range: .week, zone: "Europe/Berlin") == answer)
            let head = try #require(old.requests.first)
            // The week in Berlin: seven days from Friday 2025-01-03 (local midnight, 23:00 UTC the day before).
            #expect(head.hasPrefix("GET /sensors/9/usage?interval=day&after=2025-01-02T23:00:00Z&before=2025-01-09T12:00:00Z&tz=Europe/Berlin HTTP/1.1"))
            try cache.close()
        }
    }
}
