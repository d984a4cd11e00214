import GRDB
import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

/// A sensor's `kind` through the API: set at creation and by `PATCH` (admin),
/// in every sensor object, anything but `gauge` or `counter` a 422 naming it;
/// and kept apart from ingest's word once a person set it, also on a
/// database upgraded from before kinds.
@Suite("Sensor kind")
struct SensorKindTests {
    @Test func setAtCreationChangedByPatchAndShownEverywhere() async throws {
        try await withTestServer { server in
            let created = try server.admin.post("/sensors", json: #"{"code":"grid","units":"kWh","kind":"counter"}"#)
            #expect(created.status == 201)
            #expect(try created.json["kind"] == .string("counter"))
            #expect(try server.admin.post("/sensors", json: #"{"code":"plug","units":"W"}"#).json["kind"] == .string("gauge"))
            #expect(try server.admin.post("/sensors", json: #"{"code":"other","kind":null}"#).json["kind"] == .string("gauge"))
            // Readings posted to a new code make a gauge.
            _ = try server.writer.post("/sensors/posted/data", json: #"{"value":1}"#)

            let listed = try server.reader.get("/sensors").json["sensors"]?.arrayValue ?? []
            #expect(listed.map { $0["kind"]?.stringValue } == ["counter", "gauge", "gauge", "gauge"])
            #expect(try Sensor(json: listed[0]).kind == .counter)
            #expect(try server.reader.get("/sensors/grid").json["kind"] == .string("counter"))

            // PATCH changes it; other fields and null leave it.
            #expect(try server.admin.patch("/sensors/plug", json: #"{"kind":"counter"}"#).json["kind"] == .string("counter"))
            #expect(try server.admin.patch("/sensors/plug", json: #"{"name":"Plug"}"#).json["kind"] == .string("counter"))
            #expect(try server.admin.patch("/sensors/plug", json: #"{"kind":null}"#).json["kind"] == .string("counter"))
            #expect(try server.admin.patch("/sensors/grid", json: #"{"kind":"gauge"}"#).json["kind"] == .string("gauge"))
            #expect(try server.storage.sensor(.code("grid"))?.kind == .gauge)
            // The list answer is rebuilt: its ETag moves with the kind.
            #expect(try server.reader.get("/sensors").json["sensors"]?[0]?["kind"] == .string("gauge"))
            // Metadata is admin's.
            expectError(try server.writer.patch("/sensors/plug", json: #"{"kind":"gauge"}"#), 403, "write token")
            expectError(try server.writer.post("/sensors", json: #"{"code":"x","kind":"gauge"}"#), 403, "write token")
        }
    }

    @Test(arguments: [
        (#""meter""#, "kind must be one of gauge, counter; found 'meter'"),
        (#""Counter""#, "kind must be one of gauge, counter; found 'Counter'"),
        (#""""#, "kind must be one of gauge, counter; found ''"),
        ("1", "kind must be a string, found a number"),
        ("true", "kind must be a string, found a boolean"),
        (#"["counter"]"#, "kind must be a string, found an array"),
        (#""counter_and_then_some""#, "kind is longer than 10 characters"),
    ])
    func aBadKindIs422NamingItAndChangesNothing(value: String, message: String) async throws {
        try await withTestServer { server in
            let created = try server.admin.post("/sensors", json: #"{"code":"new","kind":"# + value + "}")
            expectError(created, 422, "POST \(value)")
            #expect(created.errorMessage == message)
            #expect(try server.storage.sensors().isEmpty)

            _ = try server.admin.post("/sensors", json: #"{"code":"meter","name":"Meter","kind":"counter"}"#)
            let patched = try server.admin.patch("/sensors/meter", json: #"{"name":"New","kind":"# + value + "}")
            expectError(patched, 422, "PATCH \(value)")
            #expect(patched.errorMessage == message)
            let sensor = try #require(try server.storage.sensor(.code("meter")))
            #expect(sensor.kind == .counter && sensor.name == "Meter")
        }
    }

    /// Version 8 adds the kind: every sensor of an older file is a gauge;
    /// those an ingest path made (with a series) take its later word, the
    /// others, like any a person set, keep theirs.
    @Test(.sqliteOnly) func anUpgradedDatabaseLetsIngestSetTheKindOfItsOwnSensorsOnly() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/v7.sqlite"
            try SchemaMigrationTests.makeVersion1(at: path)
            let mqtt = SeriesIdentity(source: "mqtt", parts: ["tele/plug/SENSOR", "ENERGY.Total"])
            let queue = try DatabaseQueue(path: path)
            try queue.writeWithoutTransaction { db in
                try SenseiStore.migrator.upgrade(db, from: 1, to: 7)
                try db.execute(sql: "INSERT INTO series (identity, sensor_id) VALUES (?, 1)", arguments: [mqtt.key])
            }
            try queue.close()

            let store = try SenseiStore(path: path)
            defer { try? store.close() }
            #expect(try store.sensors().map(\.kind) == [.gauge, .gauge, .gauge])
            let flags = try store.pool.read { db in
                try Int.fetchAll(db, sql: "SELECT kind_from_ingest FROM sensors ORDER BY id")
            }
            #expect(flags == [1, 0, 0])
            let counter = Series(identity: mqtt, preferredCode: "plug_ENERGY_Total", kind: .counter)
            try store.ingest([SeriesPoint(series: counter, value: 12.5)])
            #expect(try store.sensor(.id(1))?.kind == .counter)
            // A person's kind stays against ingest's.
            _ = try store.updateSensor(.id(1), name: nil, units: nil, valueType: nil, kind: .gauge)
            try store.ingest([SeriesPoint(series: counter, value: 12.6)])
            #expect(try store.sensor(.id(1))?.kind == .gauge)
            // An ingest point that says nothing changes nothing.
            let silent = Series(identity: SeriesIdentity(source: "mqtt", parts: ["home/x", ""]), preferredCode: "x")
            try store.ingest([SeriesPoint(series: silent, value: 1)])
            #expect(try store.sensor(.code("x"))?.kind == .gauge)
            #expect(try store.integrityCheck() == "ok")
        }
    }
}
