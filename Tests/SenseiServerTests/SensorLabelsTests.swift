import Foundation
import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

/// Labels through the API: set at creation, changed by PATCH (a merge
/// patch), served in every sensor object, filtered by `?label=KEY:VALUE`.
@Suite("Sensor labels")
struct SensorLabelsTests {
    @Test func labelsAreSetPatchedAndFiltered() async throws {
        try await withTestServer { server in
            let created = try await server.admin.post("/sensors", json: """
                {"code":"porch_temp","labels":{"room":"porch","device":"esp-1","floor":"0"}}
                """)
            #expect(created.status == 201)
            #expect(created.text.hasSuffix(#""labels":{"device":"esp-1","floor":"0","room":"porch"},"kind":"gauge"}"#))
            _ = try await server.admin.post("/sensors", json: #"{"code":"hall_temp","labels":{"room":"hall","device":"esp-1"}}"#)
            _ = try await server.writer.post("/sensors/plain/data", json: #"{"value":1}"#)

            func codes(_ query: String) async throws -> [String] {
                let list = try await server.reader.get("/sensors" + query).json["sensors"]?.arrayValue ?? []
                return list.compactMap { $0["code"]?.stringValue }
            }
            #expect(try await codes("") == ["porch_temp", "hall_temp", "plain"])
            #expect(try await codes("?label=device:esp-1") == ["porch_temp", "hall_temp"])
            #expect(try await codes("?label=device:esp-1&label=room:hall") == ["hall_temp"])
            #expect(try await codes("?label=device:esp-2") == [])
            // A value may hold ':'; percent-encoding works as anywhere in a query.
            _ = try await server.admin.patch("/sensors/plain", json: #"{"labels":{"url":"http://a:1/x y"}}"#)
            #expect(try await codes("?label=url:http://a:1/x%20y") == ["plain"])
            #expect(try await server.reader.get("/sensors/plain").json["labels"] == .object(["url": .string("http://a:1/x y")]))
            // A sensor without labels serves {}.
            #expect(try await server.reader.get("/sensors/hall_temp").json["labels"]?.objectValue?.count == 2)

            // PATCH merges: a string sets, null removes, others stay.
            let patched = try await server.admin.patch("/sensors/porch_temp", json: #"{"labels":{"room":"garden","floor":null}}"#)
            #expect(patched.status == 200)
            #expect(try patched.json["labels"] == .object(["room": .string("garden"), "device": .string("esp-1")]))
            #expect(try await codes("?label=room:porch") == [])
            #expect(try await codes("?label=room:garden") == ["porch_temp"])
            #expect(try await server.writer.patch("/sensors/porch_temp", json: #"{"labels":{"a":"b"}}"#).status == 403)
        }
    }

    @Test(arguments: [
        (#"{"labels":[1]}"#, "labels must be an object of string values, found an array"),
        (#"{"labels":{"bad key":"x"}}"#, "labels: label key 'bad key' may only hold letters, digits, '_', '.' and '-'"),
        (#"{"labels":{"":"x"}}"#, "labels: label key is empty"),
        ("{\"labels\":{\"\(String(repeating: "k", count: 65))\":\"x\"}}", "labels: label key is longer than 64 characters"),
        ("{\"labels\":{\"k\":\"\(String(repeating: "é", count: 129))\"}}", "labels.k: label value is longer than 256 bytes"),
        (#"{"labels":{"k":5}}"#, "labels.k must be a string or null, found a number"),
        (#"{"labels":{"k":"a\u0000"}}"#, #"labels.k: label value must not contain NUL (\u0000)"#),
        ("{\"labels\":{" + (0..<33).map { "\"k\($0)\":\"v\"" }.joined(separator: ",") + "}}",
         "labels: a sensor may have at most 32 labels; this change leaves 34"),
    ])
    func invalidLabelsAre422AndChangeNothing(body: String, message: String) async throws {
        try await withTestServer { server in
            _ = try await server.admin.post("/sensors", json: #"{"code":"s","labels":{"keep":"me"}}"#)
            let response = try await server.admin.patch("/sensors/s", json: body)
            #expect(response.status == 422)
            #expect(response.errorMessage == message)
            #expect(try server.storage.sensor(.code("s"))?.labels == ["keep": "me"])
        }
    }

    @Test func labelLimitsHoldAtTheirEdges() async throws {
        try await withTestServer { server in
            let pairs = (0..<32).map { "\"k\($0)\":\"\(String(repeating: "é", count: 128))\"" }.joined(separator: ",")
            let key = String(repeating: "k", count: 64)
            #expect(try await server.admin.post("/sensors", json: "{\"code\":\"a\",\"labels\":{\(pairs)}}").status == 201)
            #expect(try await server.admin.post("/sensors", json: "{\"code\":\"b\",\"labels\":{\"\(key)\":\"\"}}").status == 201)
            let over = (0..<33).map { "\"k\($0)\":\"v\"" }.joined(separator: ",")
            let refused = try await server.admin.post("/sensors", json: "{\"code\":\"c\",\"labels\":{\(over)}}")
            #expect(refused.status == 422 && refused.errorMessage == "labels: at most 32 labels, found 33")
            #expect(try await server.admin.post("/sensors", json: #"{"code":"d","labels":{"k":null}}"#).errorMessage
                    == "labels.k must be a string, found null")
        }
    }

    @Test(arguments: ["?label=room", "?label=bad%20key:x", "?label=:x"])
    func malformedFilterIs400(query: String) async throws {
        try await withTestServer { server in
            let response = try await server.reader.get("/sensors" + query)
            #expect(response.status == 400)
            #expect(response.errorMessage?.hasPrefix("label") == true)
        }
    }

    /// `--max-sensors` holds for every REST path that creates a sensor; 403
    /// says the request is fine but refused by the server's policy.
    @Test func sensorLimitRefusesRESTCreationWith403() async throws {
        try await withTestServer(configure: { $0.maxSensors = 2 }) { server in
            #expect(try await server.writer.post("/sensors/a/data", json: #"{"value":1}"#).status == 201)
            #expect(try await server.admin.post("/sensors", json: #"{"code":"b"}"#).status == 201)
            let message = "sensor limit reached: the server holds at most 2 sensors (--max-sensors); "
                + "delete sensors or raise the limit to create more"
            for response in [try await server.writer.post("/sensors/c/data", json: #"{"value":1}"#),
                             try await server.writer.post("/sensor_data", json: #"{"sensor_code":"c","value":"1"}"#),
                             try await server.admin.post("/sensors", json: #"{"code":"c"}"#)] {
                #expect(response.status == 403)
                #expect(response.errorMessage == message)
            }
            // Existing sensors still take readings.
            #expect(try await server.writer.post("/sensors/a/data", json: #"{"value":2}"#).status == 201)
            #expect(try await server.writer.post("/sensor_data", json: #"{"sensor_code":"b","value":"2"}"#).status == 201)
            #expect(try server.storage.sensors().map(\.code) == ["a", "b"])
        }
    }

    /// Many labelled sensors: the list carries every one's labels and a
    /// filter picks exactly its sensors. Timings are printed, not asserted.
    @Test func manyLabelledSensorsListAndFilter() async throws {
        try await withTestServer { server in
            let points = (0..<2_000).map { index in
                SeriesPoint(series: Series(
                    identity: SeriesIdentity(source: "mqtt", parts: ["house/room\(index % 50)/s\(index)", ""]),
                    preferredCode: "room\(index % 50)_s\(index)",
                    labels: ["topic": "house/room\(index % 50)/s\(index)", "device": "room\(index % 50)",
                             "field": "s\(index)"]), value: 1, timestamp: Timestamp(milliseconds: 1000))
            }
            // Sensors without labels before and after: the list walks sensors
            // and labels side by side, and must not shift one onto another.
            _ = try await server.admin.post("/sensors", json: #"{"code":"plain_first"}"#)
            #expect(try await server.storage.ingestCommitted(points).createdSensors == 2_000)
            _ = try await server.admin.post("/sensors", json: #"{"code":"plain_last","labels":{"room":"attic"}}"#)
            _ = try await server.admin.post("/sensors", json: #"{"code":"plain_after"}"#)
            func timed(_ path: String) async throws -> (Double, HTTPResponse) {
                let start = ContinuousClock.now
                let response = try await server.reader.get(path)
                let elapsed = ContinuousClock.now - start
                return (Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1e3, response)
            }
            _ = try await timed("/sensors")
            let (full, list) = try await timed("/sensors")
            _ = try await server.writer.post("/sensors/room1_s1/data", json: #"{"value":2}"#)
            let (rebuilt, _) = try await timed("/sensors")
            let (filtered, one) = try await timed("/sensors?label=device:room7&label=source:mqtt")
            print("GET /sensors with 2,000 labelled sensors (debug build): \(full) ms cached, \(rebuilt) ms rebuilt; "
                  + "filtered to 40: \(filtered) ms")
            let listed = try #require(try list.json["sensors"]?.arrayValue)
            #expect(listed.count == 2_003)
            #expect(listed[0]["code"] == .string("plain_first") && listed[0]["labels"] == .object([:]))
            #expect(listed[2_001]["labels"] == .object(["room": .string("attic")]))
            #expect(listed[2_002]["code"] == .string("plain_after") && listed[2_002]["labels"] == .object([:]))
            #expect(listed[8]["labels"] == .object(["topic": .string("house/room7/s7"), "device": .string("room7"),
                                                    "field": .string("s7"), "source": .string("mqtt")]))
            let picked = try #require(try one.json["sensors"]?.arrayValue)
            #expect(picked.count == 40)
            #expect(picked.allSatisfy { $0["labels"]?["device"] == .string("room7") })
        }
    }
}
