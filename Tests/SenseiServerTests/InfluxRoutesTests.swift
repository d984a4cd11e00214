import Foundation
import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

/// `/write`, `/api/v2/write`, `/ping` and `/query` on a real server, answered as
/// InfluxDB answers per API version, with what was stored read back.
@Suite("InfluxDB routes")
struct InfluxRoutesTests {
    static func write(_ client: TestHTTPClient, _ path: String, _ body: String, headers: [String: String] = [:],
                      token: String?? = nil) async throws -> HTTPResponse {
        try await client.request("POST", path, body: Array(body.utf8), token: token, contentType: "text/plain; charset=utf-8",
                           headers: headers)
    }

    static func values(_ client: TestHTTPClient, _ code: String) async throws -> [Double] {
        let data = try await client.get("/sensors/\(code)/data?order=asc&limit=1000").json["data"]?.arrayValue ?? []
        return data.compactMap { $0["value"]?.doubleValue }
    }

    @Test func pingAnswersAsInfluxDB() async throws {
        try await withTestServer { server in
            let ping = try await server.anonymous.get("/ping")
            #expect(ping.status == 204 && ping.headers["x-influxdb-version"] == "1.8.10" && ping.body.isEmpty)
            #expect(try await server.anonymous.request("HEAD", "/ping").status == 204)
            let verbose = try await server.anonymous.get("/ping?verbose=true")
            #expect(verbose.status == 200 && verbose.text == #"{"version":"1.8.10"}"#)
            #expect(try await server.anonymous.get("/ping?verbose=false").status == 204)
        }
    }

    @Test func v1WritesMakeOneSensorASeries() async throws {
        try await withTestServer { server in
            let body = """
            # Telegraf's shape
            cpu,host=server01,cpu=cpu-total usage_idle=98.5,usage_user=1.25,online=t,state="ok" 1700000000000000000
            cpu,cpu=cpu-total,host=server01 usage_idle=97.5,usage_user=2i,online=F 1700000001000000000

            """
            let response = try await Self.write(server.writer, "/write?db=telegraf", body)
            #expect(response.status == 204 && response.body.isEmpty, "\(response.text)")
            #expect(response.headers["x-influxdb-version"] == "1.8.10")
            #expect(try await Self.values(server.admin, "cpu_cpu-total_server01_usage_idle") == [98.5, 97.5])
            let idle = try await server.admin.get("/sensors/cpu_cpu-total_server01_usage_idle").json
            #expect(idle["name"]?.stringValue == "cpu usage_idle (cpu=cpu-total, host=server01)")
            #expect(idle["labels"] == .object(["source": .string("influx"), "measurement": .string("cpu"),
                                               "field": .string("usage_idle"), "host": .string("server01"),
                                               "cpu": .string("cpu-total")]))
            #expect(idle["latest"]?["timestamp"]?.stringValue == "2023-11-14T22:13:21Z")
            #expect(try await server.admin.get("/sensors/cpu_cpu-total_server01_online").json["valueType"]?.stringValue == "bool")
            #expect(try await Self.values(server.admin, "cpu_cpu-total_server01_online") == [1, 0])
            // The string field made no sensor.
            let sensors = try await server.admin.get("/sensors?label=source:influx").json["sensors"]?.arrayValue ?? []
            #expect(sensors.count == 3)
        }
    }

    @Test func v1PartialWriteStoresExactlyTheGoodLines() async throws {
        try await withTestServer { server in
            let body = "m,k=a v=1 1000\nm,k=a v= 2000\nm,k=a v=3 3000\nm,k=a v=oops 4000\n"
            let response = try await Self.write(server.writer, "/write?db=x&precision=s", body)
            #expect(response.status == 400)
            #expect(response.errorMessage == "partial write: unable to parse 'm,k=a v= 2000': missing field value\n"
                + "unable to parse 'm,k=a v=oops 4000': invalid boolean dropped=0")
            #expect(response.headers["x-influxdb-error"] == "partial write: unable to parse 'm,k=a v= 2000': missing field value")
            #expect(try await Self.values(server.admin, "m_a_v") == [1, 3])
            let allBad = try await Self.write(server.writer, "/write?db=x", "m v=\n")
            #expect(allBad.status == 400 && allBad.errorMessage == "unable to parse 'm v=': missing field value")
        }
    }

    @Test func v1AndV2EmptyBodiesAndParameters() async throws {
        try await withTestServer { server in
            #expect(try await Self.write(server.writer, "/write?db=home", "").status == 204)
            let v2Empty = try await Self.write(server.writer, "/api/v2/write?org=o&bucket=b", "")
            #expect(v2Empty.status == 400 && v2Empty.text == #"{"code":"invalid","message":"writing requires points"}"#)
            let noDatabase = try await Self.write(server.writer, "/write", "m v=1")
            #expect(noDatabase.status == 400 && noDatabase.errorMessage == "database is required")
            #expect(try await Self.write(server.writer, "/write?db=d&precision=x", "m v=1").status == 400)
            let v2Precision = try await Self.write(server.writer, "/api/v2/write?bucket=b&precision=h", "m v=1")
            #expect(v2Precision.status == 400
                && v2Precision.text == #"{"code":"invalid","message":"invalid precision; valid precision units are ns, us, ms, and s"}"#)
            #expect(try await Self.write(server.reader, "/write?db=d", "m v=1").status == 403)
            #expect(try await Self.write(server.anonymous, "/write?db=d", "m v=1").status == 401)
        }
    }

    @Test func v2IsAllOrNothingOnBadLines() async throws {
        try await withTestServer { server in
            let bad = try await Self.write(server.writer, "/api/v2/write?org=o&bucket=b&precision=ms", "m v=1 1000\nm v=x 2000")
            #expect(bad.status == 400 && bad.text == #"{"code":"invalid","message":"unable to parse 'm v=x 2000': invalid boolean"}"#)
            #expect(try await server.admin.get("/sensors/m_v").status == 404)
            let good = try await Self.write(server.writer, "/api/v2/write?org=o&bucket=b&precision=us", "m v=1 1000000\nm v=2 2000999",
                                      headers: ["Authorization": "Token \(server.writer.token!)"], token: .some(nil))
            #expect(good.status == 204)
            let data = try await server.admin.get("/sensors/m_v/data?order=asc").json["data"]?.arrayValue ?? []
            #expect(data.map { $0["timestamp"]?.stringValue } == ["1970-01-01T00:00:01Z", "1970-01-01T00:00:02Z"])
        }
    }

    @Test func homeAssistantsShapeIsOneSensorPerEntity() async throws {
        try await withTestServer { server in
            let body = """
            °C,domain=sensor,entity_id=living_room value=21.3,friendly_name_str="Living room",battery=87i,device_class_str="temperature" 1700000000000000000
            °C,domain=sensor,entity_id=living_room value=21.5,friendly_name_str="Living room" 1700000060000000000
            sensor.door_count,domain=sensor,entity_id=door_count value=4i,friendly_name="Door" 1700000000000000000
            """
            #expect(try await Self.write(server.writer, "/write?db=home_assistant", body).status == 204)
            let sensors = try await server.admin.get("/sensors").json["sensors"]?.arrayValue ?? []
            #expect(sensors.compactMap { $0["code"]?.stringValue }.sorted() == ["door_count", "living_room"])
            let room = try await server.admin.get("/sensors/living_room").json
            #expect(room["name"]?.stringValue == "Living room" && room["units"]?.stringValue == "°C")
            #expect(room["labels"]?["entity_id"]?.stringValue == "living_room" && room["labels"]?["domain"]?.stringValue == "sensor")
            #expect(try await Self.values(server.admin, "living_room") == [21.3, 21.5])
            let door = try await server.admin.get("/sensors/door_count").json
            #expect(door["name"]?.stringValue == "Door" && door["units"]?.stringValue == "" && door["valueType"]?.stringValue == "int")
        }
    }

    @Test func telegrafShapedGzipNanosecondsBasicAuth() async throws {
        try await withTestServer { server in
            let lines = (0..<500).map { "disk,host=nas,path=/data used_percent=\(Double($0) / 10) \(1_700_000_000_000_000_000 + $0 * 1_000_000)\n" }
            let body = try GzipInflaterTests.gzip(Array(lines.joined().utf8))
            let basic = Data("telegraf:\(server.writer.token!)".utf8).base64EncodedString()
            let response = try await server.anonymous.request("POST", "/write?db=telegraf&precision=ns", body: body,
                                                        headers: ["Content-Encoding": "gzip", "Authorization": "Basic \(basic)"])
            #expect(response.status == 204, "\(response.text)")
            #expect(try await server.admin.get("/sensors/disk_nas_data_used_percent").json["count"]?.doubleValue == 500)
            let bomb = try GzipInflaterTests.gzip(command: "head -c 40000000 /dev/zero | gzip -c")
            let refused = try await server.writer.request("POST", "/write?db=t", body: bomb, headers: ["Content-Encoding": "gzip"])
            #expect(refused.status == 413 && refused.errorMessage == "Request Entity Too Large")
            let v2 = try await server.writer.request("POST", "/api/v2/write?bucket=b", body: bomb, headers: ["Content-Encoding": "gzip"])
            #expect(try v2.status == 413 && v2.json["code"]?.stringValue == "request too large")
            let corrupt = try await server.writer.request("POST", "/write?db=t", body: Array("m v=1".utf8), headers: ["Content-Encoding": "gzip"])
            #expect(corrupt.status == 400)
        }
    }

    @Test func maxSensorsRefusesTheRequestsNewSensors() async throws {
        try await withTestServer(configure: { $0.maxSensors = 2 }) { server in
            #expect(try await Self.write(server.writer, "/write?db=d", "m,k=a v=1 1000000").status == 204)
            let response = try await Self.write(server.writer, "/write?db=d", "m,k=a v=2 2000000\nm,k=b v=1\nm,k=c v=1\n")
            #expect(response.status == 400)
            #expect(response.errorMessage?.hasPrefix("partial write: sensor limit reached") == true, "\(response.text)")
            #expect(response.errorMessage?.hasSuffix("dropped=2") == true)
            #expect(try await Self.values(server.admin, "m_a_v") == [1, 2])
            #expect(try await server.admin.get("/sensors").json["sensors"]?.arrayValue?.count == 1)
            let v2 = try await Self.write(server.writer, "/api/v2/write?bucket=b", "m,k=d v=1\nm,k=e v=1")
            #expect(try v2.status == 422 && v2.json["code"]?.stringValue == "unprocessable entity")
        }
    }

    @Test func queryAnswersWhatWritersAskAtStartup() async throws {
        try await withTestServer { server in
            let create = try await server.writer.request("POST", "/query", body: Array("q=CREATE+DATABASE+%22telegraf%22".utf8),
                                                   contentType: "application/x-www-form-urlencoded")
            #expect(create.status == 200 && create.text == #"{"results":[{"statement_id":0}]}"# + "\n")
            // SHOW DATABASES lists the names created and written to (InfluxQLRoutesTests has more).
            let show = try await server.reader.get("/query?q=SHOW%20DATABASES&db=home")
            #expect(show.text == #"{"results":[{"statement_id":0,"series":[{"name":"databases","columns":["name"],"values":[["telegraf"]]}]}]}"# + "\n")
            let missing = try await server.reader.get("/query")
            #expect(missing.status == 400 && missing.errorMessage == #"missing required parameter "q""#)
            let other = try await server.reader.get("/query?q=SELECT%20*%20FROM%20cpu")
            #expect(other.text == #"{"results":[{"statement_id":0}]}"# + "\n")
        }
    }
}
