import Foundation
import Logging
import Testing
import SenseiModels
import SenseiTestSupport
@testable import SenseiServer

#if canImport(Glibc)
import Glibc
#endif

/// docs/design.md's "Errors and limits", provoked on purpose: every answer is the
/// documented status with a JSON `{"error": ...}` body, and nothing a client
/// sends crashes the server or becomes a 500. Each test ends by checking the
/// server still answers `/health` and logged no error.
@Suite("Errors and hostile input")
struct ErrorHandlingTests {
    @Test func malformedJSONIs400OnEveryJSONRoute() async throws {
        try await withTestServer { server in
            try await expectCreated(try server.writer.post("/sensors/probe/data", json: #"{"value": 1}"#))
            let bodies: [(String, String)] = [
                ("truncated object", #"{"value": 1"#),
                ("truncated string", #"{"value": "23."#),
                ("truncated batch", #"{"data": [{"value": 1},"#),
                ("trailing garbage", #"{"value": 1} x"#),
                ("two documents", #"{"value": 1}{"value": 2}"#),
                ("single quotes", "{'value': 1}"),
                ("single-quoted string", #"{"value": '23.5'}"#),
                ("unquoted key", "{value: 1}"),
                ("trailing comma", #"{"value": 1,}"#),
                ("NaN literal", #"{"value": NaN}"#),
                ("Infinity literal", #"{"value": Infinity}"#),
                ("-Infinity literal", #"{"value": -Infinity}"#),
                ("leading zero", #"{"value": 01}"#),
                ("hex number", #"{"value": 0x10}"#),
                ("invalid escape", #"{"value": "\x41"}"#),
                ("lone surrogate escape", #"{"value": "\ud800"}"#),
                ("comment", #"{"value": 1 /* c */}"#),
                ("raw control character", "{\"value\": \"2\u{01}3\"}"),
                ("only whitespace", "  \n "),
                ("empty", ""),
            ]
            for (name, body) in bodies {
                expectError(try await server.writer.post("/sensors/probe/data", json: body), 400, "\(name), v1 post")
                expectError(try await server.writer.post("/sensor_data", json: body), 400, "\(name), firmware post")
                expectError(try await server.admin.post("/sensors", json: body), 400, "\(name), create")
                expectError(try await server.admin.patch("/sensors/probe", json: body), 400, "\(name), patch")
            }
            // No body at all, not even a Content-Length.
            expectError(try await server.writer.request("POST", "/sensors/probe/data"), 400, "no body")
            #expect(try await server.reader.get("/sensors").json["sensors"]?.arrayValue?.count == 1)
            #expect(try await server.reader.get("/sensors/probe").json["count"] == .number(1))
            try await expectStillHealthy(server)
        }
    }

    @Test func invalidUTF8InJSONStringsIs400() async throws {
        try await withTestServer { server in
            let bodies: [(String, [UInt8])] = [
                ("0xFF in a value", bytes(#"{"value": ""#, [0xFF], #""}"#)),
                ("bad continuation in a key", bytes(#"{""#, [0xC3, 0x28], #"": 1, "value": 1}"#)),
                ("truncated sequence", bytes(#"{"value": "23"#, [0xE2, 0x82], #""}"#)),
                ("overlong slash", bytes(#"{"value": ""#, [0xC0, 0xAF], #""}"#)),
                ("encoded surrogate", bytes(#"{"value": ""#, [0xED, 0xA0, 0x80], #""}"#)),
                ("beyond U+10FFFF", bytes(#"{"value": ""#, [0xF4, 0x90, 0x80, 0x80], #""}"#)),
                ("in a batch timestamp", bytes(#"{"data": [{"value": 1, "timestamp": "2025"#, [0xFF], #""}]}"#)),
                ("stray byte outside a string", bytes(#"{"value": "#, [0xFF], "}")),
            ]
            for (name, body) in bodies {
                let response = try await server.writer.request("POST", "/sensors/probe/data", body: body,
                                                         contentType: "application/json")
                expectError(response, 400, name)
            }
            let legacy = bytes(#"{"sensor_code": "temp"#, [0xE2, 0x82], #"", "value": "1"}"#)
            expectError(try await server.writer.request("POST", "/sensor_data", body: legacy, contentType: "application/json"),
                        400, "firmware post")
            #expect(try await server.reader.get("/sensors").text == #"{"sensors":[]}"#)
            try await expectStillHealthy(server)
        }
    }

    @Test func invalidUTF8InPathAndQueryIs400() async throws {
        try await withTestServer { server in
            try await expectCreated(try server.writer.post("/sensors/probe/data", json: #"{"value": 1}"#))
            let paths: [(String, [UInt8])] = [
                ("raw bytes", bytes("/sensors/", [0xFF, 0xFE])),
                ("raw bytes before /data", bytes("/sensors/", [0xFF], "/data")),
                ("raw bytes, firmware route", bytes("/sensor_data/", [0xC3, 0x28])),
                ("percent-encoded", Array("/sensors/%FF%FE".utf8)),
                ("percent-encoded before /data", Array("/sensors/%C3%28/data".utf8)),
                ("percent-encoded limit", Array("/sensors/probe/data?limit=%FF".utf8)),
                ("raw bytes in after", bytes("/sensors/probe/data?after=", [0xFF])),
            ]
            for (name, path) in paths {
                expectError(try await rawRequest(server.reader, "GET", path), 400, name)
            }
            let post = try await rawRequest(server.writer, "POST", bytes("/sensors/", [0xFF], "/data"),
                                      body: Array(#"{"value": 1}"#.utf8))
            expectError(post, 400, "post to an invalid UTF-8 code")
            #expect(try await server.reader.get("/sensors").json["sensors"]?.arrayValue?.count == 1)
            try await expectStillHealthy(server)
        }
    }

    @Test func deepNestingIs400NotACrash() async throws {
        try await withTestServer { server in
            let depth = 100_000
            let bodies: [(String, String)] = [
                ("unclosed arrays", String(repeating: "[", count: depth)),
                ("closed arrays", String(repeating: "[", count: depth) + String(repeating: "]", count: depth)),
                ("objects", String(repeating: #"{"a":"#, count: depth)),
                ("arrays under value", #"{"value": "# + String(repeating: "[", count: depth)),
            ]
            for (name, body) in bodies {
                expectError(try await server.writer.post("/sensors/probe/data", json: body), 400, name)
                expectError(try await server.writer.post("/sensor_data", json: body), 400, "\(name), firmware post")
            }
            try await expectStillHealthy(server)
        }
    }

    @Test func hostileMutationsOfAValidBodyNeverYield500() async throws {
        try await withTestServer { server in
            try await expectCreated(try server.writer.post("/sensors/probe/data", json: #"{"value": 1}"#))
            let valid = Array(#"{"data":[{"timestamp":"2025-01-09T12:00:00Z","value":"23.5"},{"timestamp":1736424060,"value":23.6}]}"#.utf8)
            var random = SplitMix64(seed: 2025)
            for round in 0..<250 {
                var body = valid
                for _ in 0..<(1 + Int(random.next() % 4)) {
                    let index = Int(random.next() % UInt64(body.count))
                    switch random.next() % 3 {
                    case 0: body[index] = UInt8(truncatingIfNeeded: random.next())
                    case 1: body.insert(UInt8(truncatingIfNeeded: random.next()), at: index)
                    default: body.remove(at: index)
                    }
                }
                let response = try await server.writer.request("POST", "/sensors/probe/data", body: body,
                                                         contentType: "application/json")
                let context = "round \(round): \(String(decoding: body, as: UTF8.self))"
                #expect([201, 400, 422].contains(response.status), "\(context) → \(response.status)")
                if response.status != 201 { expectError(response, response.status, context) }
            }
            try await expectStillHealthy(server)
        }
    }

    // MARK: 400 bad query parameters

    @Test func badQueryParametersAre400NamingTheParameter() async throws {
        try await withTestServer { server in
            try await expectCreated(try server.writer.post("/sensors/probe/data",
                                                     json: #"{"value": 1, "timestamp": "2025-01-09T12:00:00Z"}"#))
            let range = "after=2025-01-09T00:00:00Z&before=2025-01-10T00:00:00Z"
            let queries: [(String, String)] = [
                ("limit=0", "limit"), ("limit=10001", "limit"), ("limit=abc", "limit"), ("limit=-1", "limit"),
                ("limit=", "limit"), ("limit=1.5", "limit"), ("limit=99999999999999999999", "limit"),
                ("after=garbage", "after"), ("before=garbage", "before"),
                ("after=2025-13-45T00:00:00Z", "after"), ("after=2025-01-09T12:00:00", "after"),
                ("before=yesterday", "before"), ("after=1e9", "after"),
                ("after=2025-01-10T00:00:00Z&before=2025-01-09T00:00:00Z", "after"),
                ("after=1736500000&before=1736400000", "after"),
                ("order=sideways", "order"), ("order=", "order"),
                ("buckets=10", "buckets"), ("buckets=10&after=2025-01-09T00:00:00Z", "buckets"),
                ("buckets=10&before=2025-01-10T00:00:00Z", "buckets"),
                ("buckets=0&\(range)", "buckets"), ("buckets=2001&\(range)", "buckets"),
                ("buckets=abc&\(range)", "buckets"), ("buckets=-5&\(range)", "buckets"),
            ]
            for (query, parameter) in queries {
                for route in ["/sensors/probe/data", "/sensors/probe/data.csv"] {
                    expectError(try await server.reader.get("\(route)?\(query)"), 400, "\(route)?\(query)",
                                mentioning: parameter)
                }
            }
            // The limits themselves are accepted.
            for query in ["limit=1", "limit=10000", "order=asc", "order=desc", "buckets=1&\(range)",
                          "buckets=2000&\(range)", "after=2025-01-09T12:00:00Z&before=2025-01-09T12:00:00Z"] {
                #expect(try await server.reader.get("/sensors/probe/data?\(query)").status == 200, "\(query)")
            }
            try await expectStillHealthy(server)
        }
    }

    // MARK: 400 forbidden sensor codes, 404 unknown sensors

    @Test func forbiddenOrLongCodesInPathsAre400() async throws {
        try await withTestServer { server in
            let codes = ["a%20b", "%C3%BC", "temp%C3%BCrature", "ü", "a.b", "temp.ext", "a%2Bb",
                         String(repeating: "x", count: 51)]
            for code in codes {
                expectError(try await server.reader.get("/sensors/\(code)"), 400, "GET /sensors/\(code)")
                expectError(try await server.reader.get("/sensors/\(code)/data"), 400, "GET \(code)/data")
                expectError(try await server.reader.get("/sensors/\(code)/data.csv"), 400, "GET \(code)/data.csv")
                expectError(try await server.reader.get("/sensor_data/\(code)"), 400, "GET /sensor_data/\(code)")
                expectError(try await server.writer.post("/sensors/\(code)/data", json: #"{"value": 1}"#), 400,
                            "POST \(code)/data")
                expectError(try await server.admin.patch("/sensors/\(code)", json: #"{"name": "x"}"#), 400,
                            "PATCH \(code)")
                expectError(try await server.admin.delete("/sensors/\(code)"), 400, "DELETE \(code)")
            }
            // Nothing was auto-created by the posts.
            #expect(try await server.reader.get("/sensors").text == #"{"sensors":[]}"#)
            // 50 characters is still a code.
            let longest = String(repeating: "x", count: 50)
            expectError(try await server.reader.get("/sensors/\(longest)"), 404, "50-character code")
            try await expectCreated(try server.writer.post("/sensors/\(longest)/data", json: #"{"value": 1}"#))
            try await expectStillHealthy(server)
        }
    }

    /// The path reaches Swift as a C string: an escaped NUL must never cut
    /// `a%00b` down to the code `a`.
    @Test func percentEncodedNULInCodeIs400() async throws {
        try await withTestServer { server in
            try await expectCreated(try server.writer.post("/sensors/a/data", json: #"{"value": 1}"#))
            expectError(try await server.reader.get("/sensors/a%00b"), 400, "GET a%00b")
            expectError(try await server.writer.post("/sensors/a%00b/data", json: #"{"value": 2}"#), 400, "POST a%00b/data")
            #expect(try await server.reader.get("/sensors/a").json["count"] == .number(1))
            try await expectStillHealthy(server)
        }
    }

    @Test func unknownSensorIs404ByIdAndByCode() async throws {
        try await withTestServer { server in
            for reference in ["999", "nosuch", "99999999999999999999"] {
                for path in ["/sensors/\(reference)", "/sensors/\(reference)/data",
                             "/sensors/\(reference)/data.csv"] {
                    expectError(try await server.reader.get(path), 404, "GET \(path)")
                }
                expectError(try await server.admin.patch("/sensors/\(reference)", json: #"{"name": "x"}"#), 404,
                            "PATCH \(reference)")
                expectError(try await server.admin.delete("/sensors/\(reference)"), 404, "DELETE \(reference)")
            }
            expectError(try await server.reader.get("/sensors/nosuch"), 404, "message", mentioning: "nosuch")
            expectError(try await server.reader.get("/sensors/999"), 404, "message", mentioning: "999")
            expectError(try await server.reader.get("/sensor_data/nosuch"), 404, "firmware list")
            // An id is never auto-created; only a code is.
            expectError(try await server.writer.post("/sensors/999/data", json: #"{"value": 1}"#), 404, "POST 999/data")
            #expect(try await server.reader.get("/sensors").text == #"{"sensors":[]}"#)
            try await expectStillHealthy(server)
        }
    }

    // MARK: 401, 403, 405, 409

    @Test func authMethodAndConflictErrorsAreJSON() async throws {
        try await withTestServer { server in
            let anonymous = try await server.anonymous.get("/sensors")
            #expect(anonymous.status == 401)
            #expect(anonymous.text == #"{"error":"unauthorized"}"#)
            #expect(anonymous.headers["www-authenticate"] == "Bearer")
            expectError(try await server.anonymous.get("/sensors", token: "not-a-token"), 401, "unknown token")
            expectError(try await server.anonymous.request("GET", "/sensors", headers: ["Authorization": "Basic YTpi"]),
                        401, "basic auth")
            expectError(try await server.reader.post("/sensors/probe/data", json: #"{"value": 1}"#), 403, "read posts")
            expectError(try await server.writer.post("/sensors", json: #"{"code": "probe"}"#), 403, "write creates")
            let put = try await server.admin.request("PUT", "/sensors/probe", body: Array("{}".utf8))
            expectError(put, 405, "PUT")
            #expect(put.headers["allow"] == "GET, PATCH, DELETE")
            #expect(try await server.admin.post("/sensors", json: #"{"code": "probe"}"#).status == 201)
            expectError(try await server.admin.post("/sensors", json: #"{"code": "probe"}"#), 409, "duplicate code",
                        mentioning: "probe")
            try await expectStillHealthy(server)
        }
    }

    // MARK: 413 body over the limit
}
