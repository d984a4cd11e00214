import Foundation
import SenseiModels
@testable import SenseiServer
import Testing
import SenseiTestSupport

@Suite struct StreamRoutesTests {
    @Test func committedReadingArrivesAsAnEvent() async throws {
        try await withTestServer { server in
            #expect(try await server.writer.post("/sensors/porch/data", json: #"{"value":1}"#).status == 201)
            let stream = try await EventStreamReader.open(client: server.reader, path: "/stream")
            #expect(stream.status == 200)
            #expect(stream.headers["content-type"] == "text/event-stream; charset=utf-8")
            let posted = Date()
            #expect(try await server.writer.post("/sensors/porch/data",
                                           json: #"{"value":21.5,"timestamp":"2025-01-09T12:00:00Z"}"#).status == 201)
            let event = try #require(try await stream.next())
            print("stream: a committed reading arrived \(Int(Date().timeIntervalSince(posted) * 1000)) ms after its POST began")
            #expect(event["sensor"]?.stringValue == "porch")
            #expect(event["timestamp"]?.stringValue == "2025-01-09T12:00:00Z")
            #expect(event["value"]?.doubleValue == 21.5)
            // Receive-time readings go out at the millisecond they were stored at.
            #expect(try await server.writer.post("/sensors/porch/data", json: #"{"data":[{"value":2},{"value":3}]}"#).status == 201)
            let first = try #require(try await stream.next())
            let second = try #require(try await stream.next())
            let stored = try await server.reader.get("/sensors/porch/data?limit=2&order=desc").json["data"]?.arrayValue ?? []
            #expect([second["timestamp"], first["timestamp"]] == stored.map { $0["timestamp"] })
            #expect([first["value"]?.doubleValue, second["value"]?.doubleValue] == [2, 3])
        }
    }

    @Test func legacyPostsReachTheStreamToo() async throws {
        try await withTestServer { server in
            let stream = try await EventStreamReader.open(client: server.reader, path: "/stream")
            #expect(try await server.writer.post("/sensor_data", json: #"{"sensor_code":"old_fw","value":"7.5"}"#).status == 201)
            let event = try #require(try await stream.next())
            #expect(event["sensor"]?.stringValue == "old_fw")
            #expect(event["value"]?.doubleValue == 7.5)
        }
    }

    @Test func sensorFilterRepeatedOrCommaSeparated() async throws {
        try await withTestServer { server in
            for code in ["a", "b", "c"] {
                #expect(try await server.writer.post("/sensors/\(code)/data", json: #"{"value":0}"#).status == 201)
            }
            let idOfB = try #require(try await server.reader.get("/sensors/b").json["id"]?.intValue)
            let repeated = try await EventStreamReader.open(client: server.reader, path: "/stream?sensor=a&sensor=\(idOfB)")
            let commas = try await EventStreamReader.open(client: server.reader, path: "/stream?sensor=c,a")
            for code in ["c", "b", "a"] {
                #expect(try await server.writer.post("/sensors/\(code)/data", json: #"{"value":1}"#).status == 201)
            }
            #expect(try await repeated.next()?["sensor"]?.stringValue == "b")
            #expect(try await repeated.next()?["sensor"]?.stringValue == "a")
            #expect(try await commas.next()?["sensor"]?.stringValue == "c")
            #expect(try await commas.next()?["sensor"]?.stringValue == "a")
        }
    }

    @Test func badParametersAreRefused() async throws {
        try await withTestServer { server in
            #expect(try await server.writer.post("/sensors/a/data", json: #"{"value":0}"#).status == 201)
            let unknown = try await server.reader.get("/stream?sensor=a&sensor=nope")
            #expect(unknown.status == 404)
            #expect(unknown.errorMessage == "no sensor 'nope'")
            #expect(try await server.reader.get("/stream?sensor=bad%20code").status == 400)
            let limit = try await server.reader.get("/stream?limit=0")
            #expect(limit.status == 400)
            #expect(limit.errorMessage == "limit must be a whole number from 1 to 10000, not '0'")
            #expect(try await server.reader.get("/stream?timeout=soon").status == 400)
            #expect(try await server.anonymous.get("/stream").status == 401)
            #expect(server.application.streams.count == 0)
        }
    }

    @Test func limitAndTimeoutEndTheStream() async throws {
        try await withTestServer { server in
            let limited = try await EventStreamReader.open(client: server.reader, path: "/stream?limit=2")
            let timed = try await EventStreamReader.open(client: server.reader, path: "/stream?timeout=1")
            #expect(try await server.writer.post("/sensors/a/data", json: #"{"data":[{"value":1},{"value":2},{"value":3}]}"#).status == 201)
            #expect(try await limited.next()?["value"]?.doubleValue == 1)
            #expect(try await limited.next()?["value"]?.doubleValue == 2)
            #expect(limited.waitForEnd())
            #expect(try limited.takeAll().isEmpty)
            #expect(timed.waitForEnd())
            #expect(try timed.takeAll().count == 3)
            try await waitUntil("every stream closed", seconds: 10) { server.application.streams.count == 0 }
        }
    }

    /// A stopping server ends its streams before it closes its port: a
    /// client that reopens in between hears why, not that the server is full.
    @Test func aStoppingServerSaysSoIn503() async throws {
        try await withTestServer { server in
            server.application.streams.stop()
            let refused = try await server.reader.get("/stream")
            #expect(refused.status == 503)
            #expect(refused.headers["retry-after"] == "5")
            #expect(refused.errorMessage == "the server is stopping; retry later")
        }
    }

    @Test func connectionsPastTheBoundGet503() async throws {
        try await withTestServer(configure: {
            $0.streams.maxListeners = 2
            $0.streams.heartbeat = .milliseconds(100)
        }) { server in
            var first: EventStreamReader? = try await EventStreamReader.open(client: server.reader, path: "/stream")
            let second = try await EventStreamReader.open(client: server.reader, path: "/stream")
            #expect(first?.status == 200 && second.status == 200)
            let refused = try await server.reader.get("/stream")
            #expect(refused.status == 503)
            #expect(refused.headers["retry-after"] == "5")
            #expect(refused.errorMessage == "2 streams are open, the most this server allows; retry later")
            // A client gone is found by the next heartbeat, and its place freed.
            first = nil
            try await waitUntil("the gone client's stream closed", seconds: 10) { server.application.streams.count == 1 }
            let third = try await EventStreamReader.open(client: server.reader, path: "/stream")
            #expect(third.status == 200)
            #expect(server.application.streams.count <= 2)
            _ = try await second.next(within: 0.5)
            #expect(second.comments.contains(": heartbeat"))
        }
    }

    @Test func slowClientIsCutAndIngestionGoesOn() async throws {
        try await withTestServer(configure: { $0.streams.queueBytes = 4096 }) { server in
            let slow = try await EventStreamReader.open(client: server.reader, path: "/stream")
            let fast = try await EventStreamReader.open(client: server.reader, path: "/stream?limit=1")
            // Far more than the 4 KiB queue and the socket buffers hold: loopback
            // buffers autotune to megabytes (a slow client once took 5,166 of
            // 20,000 readings before its cut, and under load all of them), so
            // 100,000 readings, about 8 MB of events.
            let batches = 20
            let batch = (0..<5000).map { #"{"timestamp":\#(1_736_000_000 + $0),"value":\#($0)}"# }.joined(separator: ",")
            for _ in 0..<batches {
                #expect(try await server.writer.post("/sensors/a/data", json: #"{"data":[\#(batch)]}"#).status == 201)
            }
            #expect(try await fast.next()?["value"]?.doubleValue == 0)
            // The slow one now reads: it gets what fitted, then the cut.
            #expect(slow.waitForEnd(within: 20))
            let received = try slow.takeAll().count
            #expect(received < batches * 5000, "received \(received)")
            try await waitUntil("every stream closed", seconds: 10) { server.application.streams.count == 0 }
        }
    }

    @Test func shutdownEndsOpenStreams() async throws {
        var stream: EventStreamReader?
        // From the stream's opening: the wait for a server's turn is not the shutdown's.
        var started = Date()
        try await withTestServer { server in
            stream = try await EventStreamReader.open(client: server.reader, path: "/stream")
            #expect(stream?.status == 200)
            started = Date()
        }
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(await stream?.waitForEnd(within: 5) == true)
    }

    @Test func sigtermWithStreamsOpenExitsCleanly() async throws {
        try await withTemporaryDirectory { directory in
            let (server, port) = try await ServerProcess.start(dataDirectory: directory, environment: ["SENSEI_TOKEN": "t0ken"])
            let client = TestHTTPClient(port: port, token: "t0ken")
            let streams = try (0..<3).map { _ in try EventStreamReader(client: client, path: "/stream") }
            #expect(try await client.post("/sensors/a/data", json: #"{"value":1}"#).status == 201)
            #expect(try await streams[0].next()?["value"]?.doubleValue == 1)
            let status = await server.stop(signal: SIGTERM)
            if status != 0 { print(server.log) }
            #expect(status == 0)
            #expect(streams.allSatisfy { $0.waitForEnd(within: 5) })
        }
    }
}
