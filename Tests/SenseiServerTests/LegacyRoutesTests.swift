import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

/// The seed project's routes, which deployed ESP32 firmware speaks: the
/// requests are the firmware's bytes and the answers are compared literally,
/// since a device cannot be updated to cope with a changed shape.
@Suite("Firmware-compatible routes")
struct LegacyRoutesTests {
    /// Exactly what the firmware sends, value as a string.
    static let firmwareBody = #"{"sensor_code": "temperature_ext", "value": "23.5"}"#

    @Test func firmwarePostIsStoredOnAnAutoCreatedSensor() async throws {
        try await withTestServer { server in
            let before = Timestamp.now()
            let response = try await server.writer.post("/sensor_data", json: Self.firmwareBody,
                                                  contentType: "application/json")
            #expect(response.status == 201)
            #expect(response.text == #"{"status":"ok"}"#)
            #expect(response.headers["content-type"] == "application/json; charset=utf-8")

            let sensor = try await server.reader.get("/sensors/temperature_ext")
            #expect(sensor.status == 200)
            let json = try sensor.json
            #expect(json["code"] == .string("temperature_ext"))
            #expect(json["name"] == .string("Temperature ext"))
            #expect(json["units"] == .string(""))
            #expect(json["valueType"] == .string("float"))
            #expect(json["count"] == .number(1))
            #expect(json["latest"]?["value"] == .number(23.5))

            let data = try await server.reader.get("/sensors/temperature_ext/data").json["data"]?.arrayValue ?? []
            #expect(data.count == 1)
            #expect(data.first?["value"] == .number(23.5))
            // Stamped with the server's receive time.
            let stamped = data.first?["timestamp"]?.stringValue.flatMap(Timestamp.init(rfc3339:))
            #expect(stamped.map { $0 >= before.adding(milliseconds: -1000) && $0 <= Timestamp.now() } == true)
        }
    }

    @Test func numericValueIsAccepted() async throws {
        try await withTestServer { server in
            let response = try await server.writer.post("/sensor_data", json: #"{"sensor_code": "humidity", "value": 41.25}"#)
            #expect(response.status == 201)
            #expect(response.text == #"{"status":"ok"}"#)
            let data = try await server.reader.get("/sensors/humidity/data").json["data"]?.arrayValue
            #expect(data?.count == 1)
            #expect(data?.first?["value"] == .number(41.25))
        }
    }

    @Test func missingFieldIs400WithTheSeedMessage() async throws {
        try await withTestServer { server in
            // Rails' `blank?`, as the seed server used it: absent, null, "", spaces only.
            for body in [#"{"value": "23.5"}"#, #"{"sensor_code": "temperature_ext"}"#, "{}",
                         #"{"sensor_code": "temperature_ext", "value": null}"#,
                         #"{"sensor_code": "", "value": "23.5"}"#, #"{"sensor_code": "   ", "value": "23.5"}"#,
                         #"{"sensor_code": null, "value": "23.5"}"#, #"{"sensor_code": "temperature_ext", "value": ""}"#,
                         #"{"sensor_code": "temperature_ext", "value": " \t\r\n"}"#,
                         #"{"sensor_code": "temperature_ext", "value": false}"#,
                         #"{"sensor_code": "temperature_ext", "value": []}"#] {
                let response = try await server.writer.post("/sensor_data", json: body)
                #expect(response.status == 400, "\(body)")
                #expect(response.text == #"{"error":"Missing sensor_code or value"}"#, "\(body)")
            }
            #expect(try await server.reader.get("/sensors").text == #"{"sensors":[]}"#)
        }
    }

    @Test func invalidCodeOrValueIsRefusedAndNotStored() async throws {
        try await withTestServer { server in
            for body in [#"{"sensor_code": "temp ext", "value": "23.5"}"#,
                         #"{"sensor_code": "\#(String(repeating: "x", count: 51))", "value": "23.5"}"#,
                         #"{"sensor_code": "temperature_ext", "value": "warm"}"#] {
                let response = try await server.writer.post("/sensor_data", json: body)
                #expect(response.status == 422, "\(body)")
                #expect(response.errorMessage != nil, "\(body)")
            }
            #expect(try await server.reader.get("/sensors").text == #"{"sensors":[]}"#)
        }
    }

    @Test func postNeedsWriteScope() async throws {
        try await withTestServer { server in
            let anonymous = try await server.anonymous.post("/sensor_data", json: Self.firmwareBody)
            #expect(anonymous.status == 401)
            #expect(anonymous.text == #"{"error":"unauthorized"}"#)
            #expect(anonymous.headers["www-authenticate"] == "Bearer")
            let reader = try await server.reader.post("/sensor_data", json: Self.firmwareBody)
            #expect(reader.status == 403)
            #expect(reader.errorMessage != nil)
            #expect(try await server.reader.get("/sensors").text == #"{"sensors":[]}"#)
            #expect(try await server.admin.post("/sensor_data", json: Self.firmwareBody).status == 201)
            // Reading the old route needs a token too, and read scope is enough.
            #expect(try await server.anonymous.get("/sensor_data/temperature_ext").status == 401)
            #expect(try await server.reader.get("/sensor_data/temperature_ext").status == 200)
        }
    }

    @Test func listIsAnArrayOfSeedShapedItemsNewestFirst() async throws {
        try await withTestServer { server in
            let batch = #"""
                {"data": [{"timestamp": "2025-01-09T12:00:00Z", "value": 22.5},
                          {"timestamp": "2025-01-09T12:02:00.250Z", "value": "23.25"},
                          {"timestamp": 1736424060, "value": 23.1}]}
                """#
            #expect(try await server.writer.post("/sensors/temperature_ext/data", json: batch).status == 201)
            let response = try await server.reader.get("/sensor_data/temperature_ext")
            #expect(response.status == 200)
            #expect(response.headers["content-type"] == "application/json; charset=utf-8")
            let items = try response.json.arrayValue ?? []
            #expect(items.count == 3)
            for item in items {
                #expect(item.objectValue.map { Set($0.keys) } == ["id", "sensor_code", "value", "created_at", "updated_at"])
                #expect(item["id"]?.intValue != nil)
                #expect(item["sensor_code"] == .string("temperature_ext"))
            }
            #expect(items.map { $0["value"] } == [.string("23.25"), .string("23.1"), .string("22.5")])
            #expect(items.map { $0["created_at"] } == [.string("2025-01-09T12:02:00.250Z"),
                                                       .string("2025-01-09T12:01:00Z"), .string("2025-01-09T12:00:00Z")])
            #expect(items.map { $0["updated_at"] } == items.map { $0["created_at"] })
            #expect(Set(items.compactMap { $0["id"]?.intValue }).count == 3)
        }
    }

    @Test func perDefaultsTo50AndAllowsAtMost1000() async throws {
        try await withTestServer { server in
            try await postSeries(count: 120, to: server)
            let page = try await values(of: server.reader.get("/sensor_data/series"))
            #expect(page == (70...119).reversed().map { "\($0)" })
            #expect(try await values(of: server.reader.get("/sensor_data/series?per=1000")).count == 120)
            #expect(try await values(of: server.reader.get("/sensor_data/series?per=1")) == ["119"])
            // Above 1000 is clamped to 1000, not refused, as the seed did.
            try await postSeries(count: 1_050, to: server, code: "long")
            for per in ["1001", "5000", "99999999999999999999"] {
                let response = try await server.reader.get("/sensor_data/long?per=\(per)")
                #expect(response.status == 200, "per=\(per)")
                #expect(try values(of: response).count == 1_000, "per=\(per)")
            }
            for per in ["0", "abc", "-1", ""] {
                let response = try await server.reader.get("/sensor_data/series?per=\(per)")
                #expect(response.status == 400, "per=\(per)")
                #expect(response.errorMessage?.contains("per") == true, "per=\(per)")
            }
        }
    }

    @Test func pagesContinueWithoutOverlap() async throws {
        try await withTestServer { server in
            try await postSeries(count: 120, to: server)
            var seen: [String] = []
            for page in 1...4 {
                let values = try await values(of: server.reader.get("/sensor_data/series?per=50&page=\(page)"))
                #expect(values.count == [50, 50, 20, 0][page - 1], "page \(page)")
                seen += values
            }
            #expect(seen == (0...119).reversed().map { "\($0)" })
            #expect(try await values(of: server.reader.get("/sensor_data/series?page=2&per=7")) == (106...112).reversed().map { "\($0)" })
            for page in ["0", "abc"] {
                #expect(try await server.reader.get("/sensor_data/series?page=\(page)").status == 400, "page=\(page)")
            }
        }
    }

    @Test func afterAndBeforeAreInclusiveFilters() async throws {
        try await withTestServer { server in
            try await postSeries(count: 120, to: server)
            // Reading i is at 2025-01-09T12:00:00Z + i seconds.
            let rfc = try await values(of: server.reader.get(
                "/sensor_data/series?after=2025-01-09T12:00:10Z&before=2025-01-09T12:00:19Z"))
            #expect(rfc == (10...19).reversed().map { "\($0)" })
            let epoch = try await values(of: server.reader.get("/sensor_data/series?after=1736424100&before=1736424102"))
            #expect(epoch == ["102", "101", "100"])
            #expect(try await values(of: server.reader.get("/sensor_data/series?after=2025-01-09T12:01:55Z")) ==
                ["119", "118", "117", "116", "115"])
            #expect(try await values(of: server.reader.get("/sensor_data/series?before=1736424001&per=1000")) == ["1", "0"])
            let filteredPage = try await values(of: server.reader.get(
                "/sensor_data/series?after=1736424010&before=1736424019&per=4&page=2"))
            #expect(filteredPage == ["15", "14", "13", "12"])
            for query in ["after=garbage", "before=garbage", "after=1736424019&before=1736424010"] {
                let response = try await server.reader.get("/sensor_data/series?\(query)")
                #expect(response.status == 400, "\(query)")
                #expect(response.errorMessage != nil, "\(query)")
            }
        }
    }

    @Test func unknownCodeIs404() async throws {
        try await withTestServer { server in
            let response = try await server.reader.get("/sensor_data/nosuch")
            #expect(response.status == 404)
            #expect(response.errorMessage?.contains("nosuch") == true)
            #expect(try await server.reader.get("/sensor_data/temp.ext").status == 400)
        }
    }

    /// Readings `0...count-1` on sensor `series`, reading i at
    /// 2025-01-09T12:00:00Z (epoch 1736424000) + i seconds with value i.
    private func postSeries(count: Int, to server: TestServer, code: String = "series") async throws {
        let items = (0..<count).map { #"{"timestamp": \#(1_736_424_000 + $0), "value": \#($0)}"# }
        let response = try await server.writer.post("/sensors/\(code)/data",
                                              json: #"{"data": [\#(items.joined(separator: ","))]}"#)
        #expect(response.status == 201)
        #expect(response.text == #"{"accepted":\#(count)}"#)
    }

    /// The `value` strings of a firmware list answer, in order.
    private func values(of response: HTTPResponse) throws -> [String] {
        #expect(response.status == 200, "\(response.status) \(response.text)")
        return try response.json.arrayValue?.compactMap { $0["value"]?.stringValue } ?? []
    }
}
