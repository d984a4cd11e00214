import GRDB
import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

@Suite("Sensor routes")
struct SensorRoutesTests {
    @Test func emptyListThenCreatedSensor() async throws {
        try await withTestServer { server in
            #expect(try await server.reader.get("/sensors").text == #"{"sensors":[]}"#)

            let created = try await server.admin.post(
                "/sensors", json: #"{"code":"hum_bath","name":"Bathroom humidity","units":"%","valueType":"int"}"#)
            #expect(created.status == 201)
            let sensor = try Sensor(json: try created.json)
            #expect(sensor.id == 1)
            #expect(sensor.code == "hum_bath")
            #expect(sensor.name == "Bathroom humidity")
            #expect(sensor.units == "%")
            #expect(sensor.valueType == .int)
            #expect(sensor.latest == nil)
            #expect(sensor.count == 0)
            #expect(sensor.retentionDays == nil)
            #expect(created.text.contains(#""latest":null,"count":0,"retentionDays":null,"labels":{},"kind":"gauge"}"#))

            let list = try await server.reader.get("/sensors").json
            #expect(list["sensors"]?.arrayValue?.count == 1)
            #expect(try Sensor(json: list["sensors"]![0]!) == sensor)
        }
    }

    @Test func showByIdOrCodeWithLatestAndCount() async throws {
        try await withTestServer { server in
            _ = try await server.writer.post("/sensors/temperature_ext/data", json: """
                {"data":[{"timestamp":"2025-01-09T11:00:00Z","value":21},{"timestamp":"2025-01-09T12:00:00Z","value":23.5}]}
                """)
            for path in ["/sensors/1", "/sensors/temperature_ext"] {
                let response = try await server.reader.get(path)
                #expect(response.status == 200)
                let json = try response.json
                #expect(json["id"] == .number(1))
                #expect(json["code"] == .string("temperature_ext"))
                #expect(json["name"] == .string("Temperature ext"))
                #expect(json["units"] == .string(""))
                #expect(json["valueType"] == .string("float"))
                #expect(json["latest"] == .object(["timestamp": .string("2025-01-09T12:00:00Z"), "value": .number(23.5)]))
                #expect(json["count"] == .number(2))
            }
            #expect(try await server.reader.get("/sensors/2").status == 404)
            #expect(try await server.reader.get("/sensors/nothing_here").errorMessage == "no sensor 'nothing_here'")
        }
    }

    @Test func duplicateCodeIs409() async throws {
        try await withTestServer { server in
            #expect(try await server.admin.post("/sensors", json: #"{"code":"a"}"#).status == 201)
            let again = try await server.admin.post("/sensors", json: #"{"code":"a","name":"Other"}"#)
            #expect(again.status == 409)
            #expect(again.errorMessage == "a sensor with code 'a' already exists")
        }
    }

    @Test(arguments: [
        (#"{"name":"x"}"#, "code is missing"),
        (#"{"code":"bad code"}"#, "sensor code 'bad code' may only hold letters, digits, '_' and '-'"),
        (#"{"code":"a","valueType":"double"}"#, "valueType must be one of float, int, bool; found 'double'"),
        (#"{"code":"a","units":5}"#, "units must be a string, found a number"),
        (#"{"code":"a","unit":"C"}"#, "unknown field 'unit'; expected code, name, units, valueType, retentionDays, labels, kind"),
        (#"{"code":"a","retentionDays":0}"#, Self.retentionRule + "; found 0"),
        (#"{"code":"a","name":""}"#, "name must not be empty"),
        (#"{"code":"a","name":"a\u0000b"}"#, #"name must not contain NUL (\u0000)"#),
        (#"{"code":"a","units":"\u0000"}"#, #"units must not contain NUL (\u0000)"#),
        ("[1,2]", "body must be a JSON object, found an array"),
    ])
    func invalidCreateIs422(body: String, message: String) async throws {
        try await withTestServer { server in
            let response = try await server.admin.post("/sensors", json: body)
            #expect(response.status == 422)
            #expect(response.errorMessage == message)
            #expect(try server.storage.sensors().isEmpty)
        }
    }

    @Test func patchChangesOnlyGivenFields() async throws {
        try await withTestServer { server in
            _ = try await server.admin.post("/sensors", json: #"{"code":"t1","name":"Old","units":"C"}"#)
            let patched = try await server.admin.patch("/sensors/t1", json: #"{"name":"Living room","valueType":"int"}"#)
            #expect(patched.status == 200)
            let sensor = try Sensor(json: try patched.json)
            #expect(sensor.name == "Living room")
            #expect(sensor.units == "C")
            #expect(sensor.valueType == .int)
            #expect(sensor.updatedAt >= sensor.createdAt)
            #expect(try await server.admin.patch("/sensors/99", json: #"{"name":"x"}"#).status == 404)
            #expect(try await server.admin.patch("/sensors/t1", json: #"{"code":"t2"}"#).status == 422)
        }
    }

    static let retentionRule =
        "retentionDays must be a whole number of days from 1 to 36500, or null to keep readings forever"

    @Test func retentionIsSetAtCreationChangedAndCleared() async throws {
        try await withTestServer { server in
            let created = try await server.admin.post("/sensors", json: #"{"code":"power","retentionDays":30}"#)
            #expect(created.status == 201)
            #expect(try created.json["retentionDays"] == .number(30))
            // Other fields leave it alone; a number changes it; null keeps readings forever.
            #expect(try await server.admin.patch("/sensors/power", json: #"{"units":"W"}"#).json["retentionDays"] == .number(30))
            #expect(try await server.admin.patch("/sensors/power", json: #"{"retentionDays":36500}"#).json["retentionDays"]
                    == .number(36500))
            #expect(try await server.reader.get("/sensors").json["sensors"]?[0]?["retentionDays"] == .number(36500))
            let cleared = try await server.admin.patch("/sensors/power", json: #"{"retentionDays":null}"#)
            #expect(cleared.status == 200)
            #expect(try cleared.json["retentionDays"] == .null)
            #expect(try await Sensor(json: try server.reader.get("/sensors/power").json).retentionDays == nil)
            #expect(try await server.admin.post("/sensors", json: #"{"code":"b","retentionDays":null}"#).json["retentionDays"]
                    == .null)
            // Metadata is admin's.
            #expect(try await server.writer.patch("/sensors/power", json: #"{"retentionDays":1}"#).status == 403)
        }
    }

    @Test(arguments: [
        ("0", "found 0"), ("-1", "found -1"), ("1.5", "found 1.5"), ("36501", "found 36501"), ("1e300", "found 1e+300"),
        (#""30""#, "found a string"), ("true", "found a boolean"), ("[30]", "found an array"), ("{}", "found an object"),
    ])
    func invalidRetentionIs422AndChangesNothing(value: String, found: String) async throws {
        try await withTestServer { server in
            _ = try await server.admin.post("/sensors", json: #"{"code":"t","retentionDays":7}"#)
            let response = try await server.admin.patch("/sensors/t", json: #"{"name":"New","retentionDays":"# + value + "}")
            expectError(response, 422, value)
            #expect(response.errorMessage == Self.retentionRule + "; " + found)
            let sensor = try #require(try server.storage.sensor(.code("t")))
            #expect(sensor.retentionDays == 7 && sensor.name == "T")
        }
    }

    /// The writer does not enforce foreign keys (SenseiStore.init): deleting a
    /// sensor must still leave none of its rows behind, in any table.
    /// (PostgreSQL's foreign keys cascade: its twin is below.)
    @Test(.sqliteOnly) func deleteLeavesNoRowOfTheSensorAnywhere() async throws {
        try await withTestServer { server in
            let now = Timestamp.now().milliseconds
            let series = Series(identity: SeriesIdentity(source: "mqtt", parts: ["porch/temperature", ""]),
                                preferredCode: "porch", labels: ["room": "porch"])
            // Two days every 10 minutes: minute and hour rollups, and packed hours once compacted.
            let points = (0..<288).map {
                SeriesPoint(series: series, value: Double($0), timestamp: Timestamp(milliseconds: now - 2 * 86_400_000 + Int64($0) * 600_000))
            }
            #expect(try server.store.ingest(points).accepted == 288)
            _ = try await server.writer.post("/sensors/kept/data", json: #"{"value":1}"#)
            #expect(try await server.admin.post("/alerts", json: #"{"name":"n","sensor":"porch","condition":"above","threshold":1,"notify":["http://h/x"]}"#).status == 201)
            _ = try server.store.compact()
            let id = try #require(try server.store.sensor(.code("porch"))?.id)
            let owned = try await server.store.pool.read { db in try SenseiStore.tablesOwnedBySensors(in: db) }
            #expect(Set(owned.map(\.table)) == ["readings", "reading_blocks", "rollups_minute", "rollups_hour",
                                                "sensor_labels", "series", "alert_rules"])
            func rows(of sensor: Int64) throws -> [String: Int] {
                try server.store.pool.read { db in
                    try Dictionary(uniqueKeysWithValues: owned.map { table, column in
                        (table, try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table) WHERE \(column) = ?", arguments: [sensor]) ?? 0)
                    })
                }
            }
            // Every kind of row was there to delete.
            let before = try rows(of: id)
            #expect(before.values.allSatisfy { $0 > 0 }, "\(before)")
            #expect(try await server.admin.delete("/sensors/porch").status == 204)
            let after = try rows(of: id)
            #expect(after.values.allSatisfy { $0 == 0 }, "\(after)")
            let orphans = try server.store.pool.read { db in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") }
            #expect(orphans.isEmpty)
            #expect(try await server.reader.get("/sensors/kept/data").json["data"]?.arrayValue?.count == 1)
        }
    }

    /// On PostgreSQL the foreign keys cascade: every table that references
    /// `sensors` (read from the catalog, so a table added later is covered)
    /// had rows of the sensor, and has none after the delete.
    @Test(.enabled(if: TestBackend.current == .postgresql, "PostgreSQL's cascade"))
    func deleteLeavesNoRowOfTheSensorInAnyReferencingTable() async throws {
        try await withTestServer { server in
            let now = Timestamp.now().milliseconds
            let series = Series(identity: SeriesIdentity(source: "mqtt", parts: ["porch/temperature", ""]),
                                preferredCode: "porch", labels: ["room": "porch"])
            // Two days every 10 minutes: packed hours once compacted, and rows of the last day.
            let points = (0..<288).map {
                SeriesPoint(series: series, value: Double($0),
                            timestamp: Timestamp(milliseconds: now - 2 * 86_400_000 + Int64($0) * 600_000))
            }
            #expect(try await server.storage.ingestCommitted(points).accepted == 288)
            _ = try await server.writer.post("/sensors/kept/data", json: #"{"value":1}"#)
            #expect(try await server.admin.post("/alerts", json: #"{"name":"n","sensor":"porch","condition":"above","threshold":1,"notify":["http://h/x"]}"#).status == 201)
            _ = try server.storage.runCompactionPass(now: .now(), betweenBatches: { true })
            let id = try #require(try server.storage.sensor(.code("porch"))?.id)
            let referencing = try await server.column("""
                SELECT c.conrelid::regclass::text || ' ' || a.attname FROM pg_constraint c
                JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
                WHERE c.contype = 'f' AND c.confrelid = 'sensors'::regclass ORDER BY 1
                """).compactMap { $0?.split(separator: " ").map(String.init) }
            #expect(Set(referencing.map { $0[0] }) == ["reading_blocks", "sensor_labels", "series", "alert_rules"])
            // Readings have no foreign key (schema-postgres.sql says why): the delete takes them itself.
            let owned = referencing + [["readings", "sensor_id"]]
            func rows(of sensor: Int64) async throws -> [String: String?] {
                var rows: [String: String?] = [:]
                for table in owned {
                    let count = try await server.column("SELECT count(*) FROM \(table[0]) WHERE \(table[1]) = \(sensor)")
                    rows.updateValue(count.first ?? nil, forKey: table[0])
                }
                return rows
            }
            let before = try await rows(of: id)
            #expect(before.values.allSatisfy { $0 != "0" }, "\(before)")
            #expect(try await server.admin.delete("/sensors/porch").status == 204)
            let after = try await rows(of: id)
            #expect(after.values.allSatisfy { $0 == "0" }, "\(after)")
            #expect(try await server.reader.get("/sensors/kept/data").json["data"]?.arrayValue?.count == 1)
        }
    }

    @Test func deleteRemovesSensorAndReadings() async throws {
        try await withTestServer { server in
            _ = try await server.writer.post("/sensors/door/data", json: #"{"data":[{"value":1},{"value":0}]}"#)
            _ = try await server.writer.post("/sensors/window/data", json: #"{"value":1}"#)
            let deleted = try await server.admin.delete("/sensors/door")
            #expect(deleted.status == 204)
            #expect(deleted.body.isEmpty)
            #expect(try await server.reader.get("/sensors/door").status == 404)
            #expect(try await server.reader.get("/sensors/door/data").status == 404)
            #expect(try await server.admin.delete("/sensors/door").status == 404)
            #expect(try await server.column("SELECT count(*) FROM readings") == ["1"])
            // A deleted code can be used again, as a new sensor.
            _ = try await server.writer.post("/sensors/door/data", json: #"{"value":1}"#)
            #expect(try await server.reader.get("/sensors/door").json["id"] == .number(3))
            #expect(try await server.reader.get("/sensors/door").json["count"] == .number(1))
        }
    }
}
