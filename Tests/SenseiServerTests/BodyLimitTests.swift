import Foundation
import Logging
import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

#if canImport(Glibc)
import Glibc
#endif

/// Body size limits (413) and declared content types (415), as
/// docs/design.md ("Errors and limits") fixes them.
@Suite("Body limits and content types")
struct BodyLimitTests {
    @Test func declaredOversizeBodyIs413BeforeTheBodyIsSent() async throws {
        try await withTestServer(configure: { $0.http.maxBodyBytes = 4096 }) { server in
            // Only the headers: the answer must come without waiting for 10 MB.
            let head = "POST /sensors/probe/data HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                + "Authorization: Bearer \(server.writer.token!)\r\nContent-Type: application/json\r\n"
                + "Content-Length: 10000000\r\n\r\n"
            let started = ContinuousClock.now
            let early = try await exchange(server.writer, Array(head.utf8), timeoutSeconds: 3)
            expectError(early, 413, "headers only", mentioning: "4096")
            // The exchange gives up after 3 s (and `expectError` then fails),
            // so this only catches a hang; timed across awaits, it also holds
            // the wait for a thread of the pool.
            #expect(ContinuousClock.now - started < .seconds(20))
            // One byte over, sent in full; exactly the limit is fine.
            let over = try await server.writer.post("/sensors/probe/data", json: padded(#"{"value": 1}"#, to: 4097))
            expectError(over, 413, "4097 bytes")
            try await expectCreated(try server.writer.post("/sensors/probe/data", json: padded(#"{"value": 2}"#, to: 4096)))
            #expect(try await server.reader.get("/sensors/probe").json["count"] == .number(1))
            try await expectStillHealthy(server)
        }
    }

    @Test func defaultBodyLimitIsOneMebibyte() async throws {
        try await withTestServer { server in
            let head = "POST /sensors/probe/data HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                + "Authorization: Bearer \(server.writer.token!)\r\nContent-Length: 1048577\r\n\r\n"
            expectError(try await exchange(server.writer, Array(head.utf8), timeoutSeconds: 3), 413, "1 MiB + 1",
                        mentioning: "1048576")
            try await expectCreated(try server.writer.post("/sensors/probe/data",
                                                     json: padded(#"{"value": 1}"#, to: 1 << 20)))
            try await expectStillHealthy(server)
        }
    }

    /// Regression: a chunked body over the limit got no answer at all (the
    /// 413 could not be queued) and the client waited for the 30 s timeout.
    @Test func chunkedBodyOverTheLimitIs413() async throws {
        try await withTestServer(configure: { $0.http.maxBodyBytes = 4096 }) { server in
            let small = try await exchange(server.writer, chunkedPost(server.writer, padded(#"{"value": 5}"#, to: 3000)),
                                     timeoutSeconds: 2)
            try expectCreated(small)
            let large = try await exchange(server.writer, chunkedPost(server.writer, padded(#"{"value": 6}"#, to: 10_000)),
                                     timeoutSeconds: 2)
            expectError(large, 413, "10 000 bytes chunked", mentioning: "4096")
            let data = try await server.reader.get("/sensors/probe/data").json["data"]?.arrayValue
            #expect(data?.count == 1)
            #expect(data?.first?["value"] == .number(5))
            try await expectStillHealthy(server)
        }
    }

    /// Regression: past 4× the limit the connection was cut without an answer.
    @Test func chunkedBodyFarOverTheLimitIs413() async throws {
        try await withTestServer(configure: { $0.http.maxBodyBytes = 4096 }) { server in
            let huge = try await exchange(server.writer, chunkedPost(server.writer, padded(#"{"value": 6}"#, to: 256 * 1024)),
                                    timeoutSeconds: 2)
            expectError(huge, 413, "256 KiB chunked", mentioning: "4096")
            expectError(try await server.reader.get("/sensors/probe"), 404, "nothing stored")
            try await expectStillHealthy(server)
        }
    }

    // MARK: 415 non-JSON types, and JSON accepted whatever its type

    @Test func nonJSONBodyUnderNonJSONTypeIs415() async throws {
        try await withTestServer { server in
            let bodies: [(String, String)] = [
                ("text/plain", "hello"),
                ("application/xml", "<reading><value>23.5</value></reading>"),
                ("text/csv", "timestamp,value\n1736424000,23.5\n"),
                ("application/x-www-form-urlencoded", "sensor_code=temperature_ext&value=23.5"),
            ]
            for (type, body) in bodies {
                expectError(try await server.writer.post("/sensors/probe/data", json: body, contentType: type), 415, type,
                            mentioning: type)
                expectError(try await server.writer.post("/sensor_data", json: body, contentType: type), 415,
                            "\(type), firmware post")
                expectError(try await server.admin.post("/sensors", json: body, contentType: type), 415, "\(type), create")
            }
            // Declared JSON, or nothing declared: a non-JSON body is malformed JSON.
            expectError(try await server.writer.post("/sensors/probe/data", json: "hello"), 400, "declared JSON")
            expectError(try await server.writer.post("/sensors/probe/data", json: "hello", contentType: nil), 400, "no type")
            #expect(try await server.reader.get("/sensors").text == #"{"sensors":[]}"#)
            try await expectStillHealthy(server)
        }
    }

    @Test func jsonBodyIsAcceptedWhateverItsDeclaredType() async throws {
        try await withTestServer { server in
            let types: [String?] = ["application/x-www-form-urlencoded", "text/plain", nil,
                                    "application/json; charset=utf-8", "application/octet-stream"]
            for type in types {
                try await expectCreated(try server.writer.post("/sensors/probe/data", json: #"{"value": 1.5}"#,
                                                         contentType: type), "\(type ?? "no type")")
                let legacy = try await server.writer.post("/sensor_data", json: #"{"sensor_code": "probe", "value": "2.5"}"#,
                                                    contentType: type)
                #expect(legacy.status == 201, "\(type ?? "no type"), firmware post")
                #expect(legacy.text == #"{"status":"ok"}"#)
            }
            #expect(try await server.admin.post("/sensors", json: #"{"code": "formed"}"#,
                                          contentType: "application/x-www-form-urlencoded").status == 201)
            #expect(try await server.reader.get("/sensors/probe").json["count"] == .number(Double(2 * types.count)))
            try await expectStillHealthy(server)
        }
    }

    // MARK: 422 invalid values
}

@Suite("Load shedding")
struct LoadSheddingTests {
    /// Bodies held at once are bounded: past the budget a request gets 503
    /// with Retry-After instead of more memory, and /health still answers.
    @Test func bodyBudgetShedsWith503() async throws {
        try await withTestServer(configure: {
            $0.http.maxBodyBytes = 8192
            $0.http.maxBufferedBodyBytes = 13_000
        }) { server in
            // Two connections each announce 6000 bytes (reserved at once) and send only part.
            var held: [Int32] = []
            defer { held.forEach { close($0) } }
            for index in 0..<2 {
                let socket = try server.writer.connect()
                held.append(socket)
                let head = "POST /sensors/s\(index)/data HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(server.writer.token!)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 6000\r\n\r\n" + String(repeating: " ", count: 5000)
                try server.writer.send(Array(head.utf8), on: socket)
            }
            // Both announced bodies are reserved once their headers are read.
            #expect(try await waitUntil(seconds: 10) { server.application.http.bufferedBodies == 12_000 })
            let shed = try await server.writer.post("/sensors/t/data", json: #"{"value": 1}"# + String(repeating: " ", count: 3000))
            #expect(shed.status == 503)
            #expect(shed.headers["retry-after"] == "1")
            #expect(shed.errorMessage == "server is busy; retry shortly")
            #expect(try await server.anonymous.get("/health").status == 200)
            // Small bodies still fit in what is left.
            #expect(try await server.writer.post("/sensors/t/data", json: #"{"value": 1}"#).status == 201)
        }
    }
}
