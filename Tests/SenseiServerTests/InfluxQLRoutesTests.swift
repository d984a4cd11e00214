import Foundation
import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

/// `/query` as Grafana and Home Assistant call it, on a real server: what
/// only Sensei has (its own sensors as series, the database list kept across
/// restarts, credentials) and the envelope (CSV, pretty, chunked, epoch,
/// errors). The answers themselves are checked against InfluxDB in
/// `InfluxQLDifferentialTests`.
@Suite("InfluxQL routes")
struct InfluxQLRoutesTests {
    static func query(_ client: TestHTTPClient, _ q: String, _ extra: String = "") async throws -> HTTPResponse {
        try await client.get("/query?q=" + InfluxQLDifferentialTests.encode(q) + extra)
    }

    @Test func grafanasHealthCheckByGetAndFormPostWithBasicAuth() async throws {
        try await withTestServer { server in
            #expect(try await server.writer.request("POST", "/write?db=home&precision=s", body: Array("cpu,host=a usage=1 1700000000".utf8)).status == 204)
            let basic = "Basic " + Data("grafana:\(server.readToken)".utf8).base64EncodedString()
            let expected = #"{"results":[{"statement_id":0,"series":[{"name":"measurements","columns":["name"],"values":[["cpu"]]}]}]}"# + "\n"
            let get = try await server.anonymous.request("GET", "/query?db=home&epoch=ms&q=SHOW%20measurements",
                                                   headers: ["Authorization": basic])
            #expect(get.status == 200 && get.text == expected)
            #expect(get.headers["content-type"] == "application/json; charset=utf-8")
            #expect(get.headers["x-influxdb-version"] == "1.8.10")
            let post = try await server.anonymous.request("POST", "/query?db=home&epoch=ms", body: Array("q=SHOW+measurements".utf8),
                                                    contentType: "application/x-www-form-urlencoded",
                                                    headers: ["Authorization": basic])
            #expect(post.status == 200 && post.text == expected)
            // Everything in the form, as some clients send it.
            let form = try await server.reader.request("POST", "/query", body: Array("db=home&epoch=ms&q=SHOW%20measurements".utf8),
                                                 contentType: "application/x-www-form-urlencoded")
            #expect(form.text == expected)
            #expect(try await server.anonymous.get("/query?q=SHOW%20measurements", token: .some(nil)).status == 401)
            let wrong = "Basic " + Data("grafana:nope".utf8).base64EncodedString()
            #expect(try await server.anonymous.request("GET", "/query?q=SHOW%20measurements", headers: ["Authorization": wrong]).status == 401)
        }
    }

    /// Home Assistant creates no sensor unless SHOW DATABASES lists its database.
    @Test func showDatabasesListsEveryNameCreatedOrWrittenAndKeepsThem() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer(dataDirectory: directory) { server in
                let empty = try await Self.query(server.reader, "SHOW DATABASES;")
                #expect(empty.text == #"{"results":[{"statement_id":0,"series":[{"name":"databases","columns":["name"]}]}]}"# + "\n")
                #expect(try await Self.query(server.writer, "CREATE DATABASE \"home_assistant\"").status == 200)
                #expect(try await server.writer.request("POST", "/write?db=telegraf", body: Array("m v=1".utf8)).status == 204)
                #expect(try await server.writer.request("POST", "/api/v2/write?org=o&bucket=node_red", body: Array("m v=2".utf8)).status == 204)
            }
            try await withTestServer(dataDirectory: directory) { server in
                let listed = try await Self.query(server.reader, "SHOW DATABASES;")
                #expect(listed.text == #"{"results":[{"statement_id":0,"series":[{"name":"databases","columns":["name"],"values":[["home_assistant"],["node_red"],["telegraf"]]}]}]}"# + "\n")
            }
        }
    }

    /// The series model, the other way: a sensor made through the REST API
    /// is measurement = its code, field `value`, tags = its labels but `source`.
    @Test func restSensorsReadAsMeasurementsOfTheirCode() async throws {
        try await withTestServer { server in
            #expect(try await server.admin.post("/sensors", json: #"{"code":"porch_temp","valueType":"float","labels":{"room":"porch","source":"esp"}}"#).status == 201)
            #expect(try await server.admin.post("/sensors", json: #"{"code":"door_count","valueType":"int"}"#).status == 201)
            #expect(try await server.writer.post("/sensors/porch_temp/data", json: #"{"data":[{"timestamp":"2025-01-09T12:00:00Z","value":3.5},{"timestamp":"2025-01-09T12:01:00Z","value":4.25}]}"#).status == 201)
            #expect(try await server.writer.post("/sensors/door_count/data", json: #"{"timestamp":"2025-01-09T12:00:00Z","value":7}"#).status == 201)
            let measurements = try await Self.query(server.reader, "SHOW MEASUREMENTS").text
            #expect(measurements.contains(#""values":[["door_count"],["porch_temp"]]"#))
            #expect(try await Self.query(server.reader, "SHOW TAG KEYS FROM porch_temp").text.contains(#""values":[["room"]]"#))
            #expect(try await Self.query(server.reader, "SHOW FIELD KEYS").text
                == #"{"results":[{"statement_id":0,"series":[{"name":"door_count","columns":["fieldKey","fieldType"],"values":[["value","integer"]]},{"name":"porch_temp","columns":["fieldKey","fieldType"],"values":[["value","float"]]}]}]}"# + "\n")
            let rows = try await Self.query(server.reader, "SELECT value FROM porch_temp WHERE room = 'porch'")
            #expect(rows.text == #"{"results":[{"statement_id":0,"series":[{"name":"porch_temp","columns":["time","value"],"values":[["2025-01-09T12:00:00Z",3.5],["2025-01-09T12:01:00Z",4.25]]}]}]}"# + "\n")
            let count = try await Self.query(server.reader, "SELECT last(value) FROM door_count", "&epoch=s")
            #expect(count.text == #"{"results":[{"statement_id":0,"series":[{"name":"door_count","columns":["time","last"],"values":[[1736424000,7]]}]}]}"# + "\n")
        }
    }

    @Test func errorsCsvPrettyChunked() async throws {
        try await withTestServer { server in
            #expect(try await server.writer.request("POST", "/write?db=home&precision=s",
                                              body: Array("t,room=a v=1.5 1700000000\nt,room=b v=2 1700000060\n".utf8)).status == 204)
            let parse = try await Self.query(server.reader, "SELECT v FROM")
            #expect(parse.status == 400 && parse.text == #"{"error":"error parsing query: found EOF, expected identifier at line 1, char 15"}"# + "\n")
            #expect(parse.headers["x-influxdb-error"] == "error parsing query: found EOF, expected identifier at line 1, char 15")
            let mixed = try await Self.query(server.reader, "SELECT count(v) FROM t; SELECT mean(v), v FROM t; SHOW DATABASES")
            #expect(mixed.status == 200)
            // Nothing runs after a failing statement; InfluxDB 1.6 reports it "not executed" unless it is the last.
            #expect(mixed.text == #"{"results":[{"statement_id":0,"series":[{"name":"t","columns":["time","count"],"values":[["1970-01-01T00:00:00Z",2]]}]},{"statement_id":1,"error":"not executed"}]}"# + "\n")
            let csv = try await server.reader.request("GET", "/query?q=SELECT%20v%20FROM%20t%20GROUP%20BY%20room", headers: ["Accept": "application/csv"])
            #expect(csv.headers["content-type"] == "application/csv")
            #expect(csv.text == "name,tags,time,v\nt,room=a,1700000000000000000,1.5\nt,room=b,1700000060000000000,2\n")
            let pretty = try await Self.query(server.reader, "SHOW MEASUREMENTS", "&pretty=true")
            #expect(pretty.text == """
                {
                    "results": [
                        {
                            "statement_id": 0,
                            "series": [
                                {
                                    "name": "measurements",
                                    "columns": [
                                        "name"
                                    ],
                                    "values": [
                                        [
                                            "t"
                                        ]
                                    ]
                                }
                            ]
                        }
                    ]
                }

                """)
            // Chunked: each statement's result a JSON object (and line) of its own, as InfluxDB streams them.
            let chunked = try await Self.query(server.reader, "SELECT count(v) FROM t; SHOW MEASUREMENTS", "&chunked=true&epoch=ms")
            #expect(chunked.text == #"{"results":[{"statement_id":0,"series":[{"name":"t","columns":["time","count"],"values":[[0,2]]}]}]}"# + "\n"
                + #"{"results":[{"statement_id":1,"series":[{"name":"measurements","columns":["name"],"values":[["t"]]}]}]}"# + "\n")
            let missing = try await server.reader.get("/query?db=home")
            #expect(missing.status == 400 && missing.errorMessage == #"missing required parameter "q""#)
            let admin = try await Self.query(server.reader, "DROP DATABASE home")
            #expect(try admin.json["results"]?[0]?["error"]?.stringValue == "DROP is not supported by Sensei: it keeps one store and reads only")
        }
    }

    /// Home Assistant's exact query, over what its own InfluxDB integration wrote.
    @Test func homeAssistantsSensorQuery() async throws {
        try await withTestServer { server in
            let now = Int64(Date().timeIntervalSince1970)
            let lines = [(now - 600, 21.0), (now - 300, 22.0), (now - 3600, 30.0)].map { "temperature,room=living value=\($0.1) \($0.0)" }
            #expect(try await server.writer.request("POST", "/write?db=home_assistant&precision=s", body: Array(lines.joined(separator: "\n").utf8)).status == 204)
            let answer = try await Self.query(server.reader, #"select mean(value) as value from "temperature" where "room" = 'living' and time > now() - 15m"#)
            let row = try answer.json["results"]?[0]?["series"]?[0]?["values"]?[0]?.arrayValue
            #expect(row?.last == .number(21.5), "\(answer.text)")
            #expect(try answer.json["results"]?[0]?["series"]?[0]?["columns"] == .array([.string("time"), .string("value")]))
        }
    }
}
