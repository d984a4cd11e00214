import Foundation
import SenseiModels
import Testing
import SenseiTestSupport
@testable import SenseiTUI
@testable import SenseiClient

@Suite struct APIClientTests {
    let base: Int64 = 1_736_424_000_000  // 2025-01-09T12:00:00Z

    @Test func listsSensorsWithLatestReadingAndCount() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                try await server.post("porch", series(count: 3, every: 30_000, last: base, value: { 20 + Double($0) / 2 }))
                try await server.post("garage", [(base - 1_500, 4)])
                let sensors = try await server.client().sensors()
                #expect(sensors.map(\.code) == ["porch", "garage"])
                #expect(sensors[0].count == 3)
                #expect(sensors[0].latest == Reading(timestamp: Timestamp(milliseconds: base), value: 21))
                #expect(sensors[1].latest?.timestamp.milliseconds == base - 1_500)
            }
        }
    }

    @Test func readingsAreOldestFirstFromAnInclusiveAfter() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                try await server.post("porch", series(count: 10, every: 1_001, last: base))
                let client = server.client()
                let id = try #require(try await client.sensors().first?.id)
                let all = try await client.readings(sensorId: id, after: nil, limit: 100)
                #expect(all.map(\.value) == (0..<10).map(Double.init))
                // `after` is inclusive: the fourth reading's time starts the page with it.
                let page = try await client.readings(sensorId: id, after: all[3].timestamp, limit: 4)
                #expect(page == Array(all[3..<7]))
                let next = try await client.readings(sensorId: id, after: page.last!.timestamp.adding(milliseconds: 1),
                                                     limit: 4)
                #expect(next == Array(all[7..<10]))
            }
        }
    }

    @Test func wrongTokenIsUnauthorized() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server async throws in
                let client = server.client(token: "not-a-token")
                await #expect(throws: SyncFailure.unauthorized) {
                    _ = try await client.sensors()
                }
            }
        }
    }

    @Test func unknownSensorIsTheServersMessage() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                do {
                    _ = try await server.client().readings(sensorId: 999, after: nil, limit: 10)
                    Issue.record("expected a 404")
                } catch {
                    guard case .server(404, let message)? = error as? SyncFailure else {
                        Issue.record("expected .server(404, …), got \(error)")
                        return
                    }
                    #expect(message.contains("999"))
                }
            }
        }
    }

    @Test func closedPortIsRefused() async throws {
        let client = APIClient(baseURL: URL(string: "http://127.0.0.1:\(try closedPort())")!, token: "t", timeout: 2)
        await #expect(throws: SyncFailure.unreachable("connection refused")) { try await client.sensors() }
    }

    @Test func stoppedServerIsUnreachable() async throws {
        let port = try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in server.port }
        }
        let client = APIClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, token: "t", timeout: 1)
        let failure = await #expect(throws: SyncFailure.self) { try await client.sensors() }
        #expect(failure?.isOffline == true)
    }

    @Test func silentServerTimesOut() async throws {
        let silent = try SilentHTTPServer()
        defer { silent.stop() }
        let client = APIClient(baseURL: URL(string: "http://127.0.0.1:\(silent.port)")!, token: "t", timeout: 1)
        let started = ContinuousClock.now
        await #expect(throws: SyncFailure.unreachable("timed out")) { try await client.sensors() }
        #expect(ContinuousClock.now - started >= .milliseconds(900))
        // The 1 s timeout, not URLSession's 60 s default: timed by the
        // server, on its own thread, from its accept to the client's hang-up.
        let waited = try await silent.firstHangUp()
        #expect(waited < .seconds(30), "the client waited \(waited)")
    }

    @Test func errorPageWithoutJSONKeepsItsFirstLine() async throws {
        let proxy = try CannedHTTPServer(status: 502, contentType: "text/html",
                                         body: "Bad gateway: upstream down\n<html>…</html>")
        defer { proxy.stop() }
        let client = APIClient(baseURL: URL(string: "http://127.0.0.1:\(proxy.port)")!, token: "t")
        await #expect(throws: SyncFailure.server(status: 502, message: "Bad gateway: upstream down")) {
            try await client.sensors()
        }
    }

    @Test func answerOfTheWrongShapeIsInvalid() async throws {
        let odd = try CannedHTTPServer(body: #"{"sensors":[{"id":1}]}"#)
        defer { odd.stop() }
        let client = APIClient(baseURL: URL(string: "http://127.0.0.1:\(odd.port)")!, token: "t")
        await #expect(throws: SyncFailure.invalidResponse("GET /sensors: malformed sensor")) {
            try await client.sensors()
        }
    }

    @Test func requestKeepsThePathPrefixAndSendsTheToken() async throws {
        let server = try CannedHTTPServer(body: #"{"data":[]}"#)
        defer { server.stop() }
        let client = APIClient(baseURL: URL(string: "http://127.0.0.1:\(server.port)/sensei/")!, token: "s3cret")
        let readings = try await client.readings(sensorId: 7, after: Timestamp(milliseconds: base + 1), limit: 50_000)
        #expect(readings.isEmpty)
        let head = try #require(server.requests.first)
        #expect(head.hasPrefix(
            "GET /sensei/sensors/7/data?order=asc&limit=10000&after=2025-01-09T12:00:00.001Z HTTP/1.1\r\n"))
        #expect(head.contains("Authorization: Bearer s3cret\r\n"))
        #expect(!client.description.contains("s3cret"))
    }

    @Test func statusesMapToFailures() {
        #expect(APIClient.failure(status: 401, body: []) == .unauthorized)
        #expect(APIClient.failure(status: 403, body: Array(#"{"error":"read scope needed"}"#.utf8)) == .forbidden)
        #expect(APIClient.failure(status: 503, body: Array(#"{"error":"server is busy"}"#.utf8))
                == .server(status: 503, message: "server is busy"))
        #expect(APIClient.failure(status: 500, body: []) == .server(status: 500, message: "Internal Server Error"))
    }
}
