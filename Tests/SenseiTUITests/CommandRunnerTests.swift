import Foundation
import SenseiModels
import Synchronization
import Testing
import SenseiTestSupport
@testable import SenseiTUI
@testable import SenseiClient

/// Collects what a `CommandRunner` delivers, from whatever thread.
final class MessageCollector: Sendable {
    private let messages = Mutex<[Msg]>([])
    private let delivered = Mutex<[Msg]>([])

    var deliver: @Sendable (Msg) -> Void {
        { [self] msg in
            delivered.withLock { $0.append(msg) }
            messages.withLock { $0.append(msg) }
        }
    }

    /// Everything delivered so far, in order, taken or not.
    var history: [Msg] { delivered.withLock { $0 } }

    /// The first message not yet taken that `matches`, waiting up to `seconds`.
    /// Generous: on a loaded 2-core CI machine the tests that block their
    /// threads can hold the concurrency pool for seconds; a passing run still
    /// returns in milliseconds.
    func take<T>(within seconds: Double = 30, _ matches: (Msg) -> T?) async throws -> T {
        let found = try await pollAsync(seconds: seconds) {
            messages.withLock { list -> T? in
                guard let index = list.firstIndex(where: { matches($0) != nil }) else { return nil }
                return matches(list.remove(at: index))
            }
        }
        guard let found else { throw WaitTimeout(description: "no matching message within \(seconds) s") }
        return found
    }
}


@Suite struct CommandRunnerTests {
    let now = Timestamp.now().milliseconds

    @Test func runsCacheCommandsAndSyncInTheBackground() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                try await server.post("a", series(count: 4, every: 60_000, last: now - 1_000))
                try await server.post("b", series(count: 2, every: 60_000, last: now - 1_000))
                let collector = MessageCollector()
                let cache = try scratch.openCache()
                let runner = CommandRunner(cache: cache, syncer: Syncer(client: server.client(), cache: cache),
                                           deliver: collector.deliver)
                runner.run([.loadSensors, .sync])
                let empty = try await collector.take { if case .sensorsLoaded(let list) = $0 { list } else { nil } }
                #expect(empty.isEmpty)
                let fetched = try await collector.take {
                    if case .syncFinished(_, let count, _) = $0 { count } else { nil }
                }
                #expect(fetched == 6)

                let ids = try cache.sensors().map(\.id)
                // Saved before the list is read: the queue keeps commands in order.
                runner.run([.saveOrder([ids[1], ids[0]]), .loadSensors])
                let list = try await collector.take { if case .sensorsLoaded(let list) = $0 { list } else { nil } }
                #expect(list.map(\.sensor.code) == ["b", "a"])

                runner.run(.loadDetail(sensorId: ids[0], range: .hour))
                let detail = try await collector.take { if case .detailLoaded(let data) = $0 { data } else { nil } }
                #expect(detail.sensor.code == "a")
                #expect(detail.statistics?.count == 4)

                let before = detail.readings[1].timestamp
                runner.run(.loadReadings(sensorId: ids[0], from: detail.start, before: before, limit: 10))
                let page = try await collector.take {
                    if case .readingsLoaded(let id, detail.start, let readings) = $0, id == ids[0] { readings } else { nil }
                }
                #expect(page == Array(detail.readings[2...]))
            }
        }
    }

    @Test func detailOfASensorNoLongerCachedReloadsTheList() async throws {
        try await withScratch { scratch in
            let collector = MessageCollector()
            let runner = CommandRunner(cache: try scratch.openCache(), syncer: nil, deliver: collector.deliver)
            runner.run(.loadDetail(sensorId: 42, range: .day))
            let list = try await collector.take { if case .sensorsLoaded(let list) = $0 { list } else { nil } }
            #expect(list.isEmpty)
        }
    }

    @Test func failedSyncIsAMessage() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                let collector = MessageCollector()
                let cache = try scratch.openCache()
                let runner = CommandRunner(cache: cache, syncer: Syncer(client: server.client(token: "nope"), cache: cache),
                                           deliver: collector.deliver)
                runner.run(.sync)
                let failure = try await collector.take { if case .syncFailed(let failure, _) = $0 { failure } else { nil } }
                #expect(failure == .unauthorized)
            }
        }
    }

    @Test func slowSyncDoesNotHoldTheCaller() async throws {
        try await withScratch { scratch in
            // Holds the sync's request unanswered until released: the test
            // decides when the server answers, not a timeout racing the
            // cache's task for a thread of the pool.
            let silent = try SilentHTTPServer()
            defer { silent.stop() }
            let collector = MessageCollector()
            let cache = try scratch.openCache()
            let client = APIClient(baseURL: URL(string: "http://127.0.0.1:\(silent.port)")!, token: "t", timeout: 120)
            let runner = CommandRunner(cache: cache, syncer: Syncer(client: client, cache: cache), deliver: collector.deliver)
            runner.run([.sync, .loadSensors])
            // Back at once, the sync still waiting.
            #expect(!collector.history.contains { if case .syncFailed = $0 { true } else { false } })
            // The cache answers while the server holds the sync's request.
            _ = try await collector.take { if case .sensorsLoaded = $0 { true } else { nil } }
            try await eventually("the server holds the sync's request") { !silent.requests.isEmpty }
            #expect(!collector.history.contains { if case .syncFailed = $0 { true } else { false } })
            silent.release()
            let failure = try await collector.take { if case .syncFailed(let failure, _) = $0 { failure } else { nil } }
            let order = collector.history.map { msg -> String in
                switch msg {
                case .sensorsLoaded: "sensorsLoaded"
                case .syncFailed: "syncFailed"
                default: "other"
                }
            }
            #expect(order == ["sensorsLoaded", "syncFailed"])
            // Closed with no answer at all: curl's "empty reply".
            #expect(failure == .invalidResponse("malformed HTTP answer"))
        }
    }
}
