import Foundation
import Logging
import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

#if canImport(Glibc)
import Glibc
#endif

/// Invalid values and timestamps (422), and batches that fail as a whole.
@Suite("Invalid readings")
struct InvalidReadingTests {
    @Test func invalidValuesAre422() async throws {
        try await withTestServer { server in
            let values = [#""abc""#, #""12abc""#, #""""#, #"" ""#, "null", "[1]", "[]", #"{"v": 1}"#,
                          #""nan""#, #""NaN""#, #""inf""#, #""-Infinity""#, #""infinity""#, #""0x1A""#,
                          "1e400", "-1e400", #""1e400""#, "1" + String(repeating: "0", count: 400)]
            for value in values {
                let response = try await server.writer.post("/sensors/probe/data", json: #"{"value": \#(value)}"#)
                expectError(response, 422, "value \(value.prefix(20))", mentioning: "value")
                let legacy = try await server.writer.post("/sensor_data", json: #"{"sensor_code": "probe", "value": \#(value)}"#)
                #expect([400, 422].contains(legacy.status), "firmware post, value \(value.prefix(20))")
                expectError(legacy, legacy.status, "firmware post, value \(value.prefix(20))")
            }
            for body in ["{}", #"{"timestamp": "2025-01-09T12:00:00Z"}"#] {
                expectError(try await server.writer.post("/sensors/probe/data", json: body), 422, body, mentioning: "value")
            }
            for body in ["[1, 2]", "42", #""23.5""#, "null", "true", #"{"data": 5}"#, #"{"data": {}}"#,
                         #"{"data": null}"#] {
                expectError(try await server.writer.post("/sensors/probe/data", json: body), 422, body)
            }
            #expect(try await server.reader.get("/sensors").text == #"{"sensors":[]}"#)
            // What a device may send is accepted.
            for value in [#""23.5""#, #"" 23.5 ""#, "true", "-0.5", #""1e3""#] {
                try await expectCreated(try server.writer.post("/sensors/probe/data", json: #"{"value": \#(value)}"#), value)
            }
            #expect(try await server.reader.get("/sensors/probe").json["count"] == .number(5))
            try await expectStillHealthy(server)
        }
    }

    @Test func invalidTimestampsAre422() async throws {
        try await withTestServer { server in
            let now = Timestamp.now()
            let ahead = now.adding(milliseconds: 11 * 60 * 1000)
            for timestamp in [#""\#(ahead.rfc3339)""#, formatNumber(ahead.epochSeconds)] {
                let response = try await server.writer.post("/sensors/probe/data",
                                                      json: #"{"value": 1, "timestamp": \#(timestamp)}"#)
                expectError(response, 422, "11 minutes ahead: \(timestamp)", mentioning: "10 minutes")
            }
            let bad = [#""yesterday""#, #""2025-13-01T00:00:00Z""#, #""2025-02-30T00:00:00Z""#,
                       #""2025-01-09T12:00:00""#, #""2025-01-09""#, #""""#, "true", "[]", "{}",
                       "1e20", "-1e20", #""10000-01-01T00:00:00Z""#, #""NaN""#]
            for timestamp in bad {
                let response = try await server.writer.post("/sensors/probe/data",
                                                      json: #"{"value": 1, "timestamp": \#(timestamp)}"#)
                expectError(response, 422, "timestamp \(timestamp)", mentioning: "timestamp")
            }
            #expect(try await server.reader.get("/sensors").text == #"{"sensors":[]}"#)
            // A device clock a few minutes fast is tolerated.
            let soon = now.adding(milliseconds: 5 * 60 * 1000)
            try await expectCreated(try server.writer.post("/sensors/probe/data",
                                                     json: #"{"value": 1, "timestamp": "\#(soon.rfc3339)"}"#))
            try await expectStillHealthy(server)
        }
    }

    @Test func batchErrorsNameTheItem() async throws {
        try await withTestServer { server in
            let future = Timestamp.now().adding(milliseconds: 3_600_000).rfc3339
            let batches: [(String, String)] = [
                (#"{"data": [{"value": 1}, {"value": "abc"}]}"#, "data[1]"),
                (#"{"data": [{"value": 1}, {"value": 2}, {"timestamp": "2025-01-09T12:00:00Z"}]}"#, "data[2]"),
                (#"{"data": [{"value": 1}, 5]}"#, "data[1]"),
                (#"{"data": [{"value": null}]}"#, "data[0]"),
                (#"{"data": [{"value": 1}, {"value": 1, "timestamp": "\#(future)"}]}"#, "data[1]"),
                (#"{"data": [{"value": 1}, {"value": 1, "timestamp": "soon"}]}"#, "data[1]"),
                (#"{"data": [{"value": 1}, {"value": 1e400}]}"#, "data[1]"),
            ]
            for (body, item) in batches {
                expectError(try await server.writer.post("/sensors/probe/data", json: body), 422, body, mentioning: item)
            }
            expectError(try await server.writer.post("/sensors/probe/data", json: #"{"data": []}"#), 422, "empty batch")
            // The sensor's type is checked in the store: the item is still named.
            #expect(try await server.admin.post("/sensors", json: #"{"code": "door", "valueType": "bool"}"#).status == 201)
            let door = try await server.writer.post("/sensors/door/data", json: #"{"data": [{"value": 1}, {"value": 2}]}"#)
            expectError(door, 422, "bool sensor", mentioning: "data[1]")
            #expect(try await server.reader.get("/sensors/door").json["count"] == .number(0))
            // Nothing above created the sensor.
            expectError(try await server.reader.get("/sensors/probe"), 404, "probe not created")
            try await expectStillHealthy(server)
        }
    }

    @Test func aBatchWithOneBadItemStoresNothing() async throws {
        try await withTestServer { server in
            let before = #"{"data":[{"timestamp":"2025-01-09T12:00:00Z","value":1}]}"#
            try await expectCreated(try server.writer.post("/sensors/probe/data",
                                                     json: #"{"value": 1, "timestamp": "2025-01-09T12:00:00Z"}"#))
            let batch = #"""
                {"data": [{"timestamp": "2025-01-09T12:00:00Z", "value": 99},
                          {"timestamp": "2025-01-09T12:01:00Z", "value": 2},
                          {"timestamp": "2025-01-09T12:02:00Z", "value": "oops"}]}
                """#
            expectError(try await server.writer.post("/sensors/probe/data", json: batch), 422, "bad item", mentioning: "data[2]")
            #expect(try await server.reader.get("/sensors/probe/data").text == before)
            let probe = try await server.reader.get("/sensors/probe").json
            #expect(probe["count"] == .number(1))
            #expect(probe["latest"]?.serialized == #"{"timestamp":"2025-01-09T12:00:00Z","value":1}"#)

            // The same when the store refuses an item (a bool sensor given 3).
            #expect(try await server.admin.post("/sensors", json: #"{"code": "door", "valueType": "bool"}"#).status == 201)
            try await expectCreated(try server.writer.post("/sensors/door/data",
                                                     json: #"{"value": 1, "timestamp": "2025-01-09T12:00:00Z"}"#))
            let doorBatch = #"""
                {"data": [{"timestamp": "2025-01-09T12:00:00Z", "value": 0},
                          {"timestamp": "2025-01-09T12:01:00Z", "value": 1},
                          {"timestamp": "2025-01-09T12:02:00Z", "value": 3}]}
                """#
            expectError(try await server.writer.post("/sensors/door/data", json: doorBatch), 422, "bool", mentioning: "data[2]")
            #expect(try await server.reader.get("/sensors/door/data").text == before)
            #expect(try await server.reader.get("/sensors/door").json["count"] == .number(1))

            // A bad batch for an unknown code does not create the sensor.
            expectError(try await server.writer.post("/sensors/fresh/data", json: #"{"data": [{"value": 1}, {"value": []}]}"#),
                        422, "fresh", mentioning: "data[1]")
            expectError(try await server.reader.get("/sensors/fresh"), 404, "fresh not created")
            try await expectStillHealthy(server)
        }
    }
}
