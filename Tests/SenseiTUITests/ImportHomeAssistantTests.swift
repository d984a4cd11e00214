import Foundation
import GRDB
import SenseiModels
import SenseiTestSupport
import Testing
@testable import SenseiTUI
@testable import SenseiTransfer

/// A Home Assistant recorder database, made with the tables Home Assistant's
/// own recorder creates (schema 42, its DDL captured from `homeassistant==2024.3.3`
/// in Tests/Fixtures/home-assistant/), holding numeric and text states and
/// hourly long-term statistics older than the states, imported into a real
/// server: the readings, names, units and labels expected are worked out here.
@Suite(.serialized) struct ImportHomeAssistantTests {
    static let schemaFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/home-assistant/recorder-schema-42.sql").path
    /// 2024-03-01T00:00:00Z, with the microseconds a recorder writes.
    static let start = 1_709_251_200.0

    struct Expected {
        var readings: [String: [Int64: Double]] = [:]
        var skipped: [String: Int] = [:]
    }

    /// Writes the recorder database; returns what the import must make of it.
    static func makeDatabase(at path: String) throws -> Expected {
        let database = try DatabaseQueue(path: path)
        var expected = Expected()
        func ms(_ seconds: Double) -> Int64 { Int64((seconds * 1_000_000).rounded()) / 1000 }
        try database.write { db in
            try db.execute(sql: try String(contentsOfFile: schemaFile, encoding: .utf8))
            try db.execute(sql: "INSERT INTO schema_changes (schema_version, changed) VALUES (42, '2024-03-01 00:00:00')")
            try db.execute(sql: """
                INSERT INTO states_meta (metadata_id, entity_id) VALUES
                  (1, 'sensor.living_room_temperature'), (2, 'sensor.house_energy'), (3, 'binary_sensor.door');
                INSERT INTO state_attributes (attributes_id, hash, shared_attrs) VALUES
                  (1, 1, '{"state_class":"measurement","unit_of_measurement":"°C","device_class":"temperature","friendly_name":"Living room temperature"}'),
                  (2, 2, '{"state_class":"total_increasing","unit_of_measurement":"kWh","device_class":"energy","friendly_name":"House energy"}'),
                  (3, 3, '{"device_class":"door","friendly_name":"Door"}');
                INSERT INTO statistics_meta (id, statistic_id, source, unit_of_measurement, has_mean, has_sum, name) VALUES
                  (1, 'sensor.living_room_temperature', 'recorder', '°C', 1, 0, NULL),
                  (2, 'sensor.house_energy', 'recorder', 'kWh', 0, 1, NULL);
                """)
            // Two days of hourly statistics before the states, and two hours the states still cover (left out).
            for hour in -48..<2 {
                let startTs = start + Double(hour) * 3600
                let mean = 20 + Double(hour % 5) / 4
                try db.execute(sql: """
                    INSERT INTO statistics (created_ts, metadata_id, start_ts, mean, min, max) VALUES (?, 1, ?, ?, ?, ?)
                    """, arguments: [startTs + 3600, startTs, mean, mean - 1, mean + 1])
                let meter = 1000 + Double(hour + 48) * 0.5
                try db.execute(sql: """
                    INSERT INTO statistics (created_ts, metadata_id, start_ts, state, sum) VALUES (?, 2, ?, ?, ?)
                    """, arguments: [startTs + 3600, startTs, meter, meter - 1000])
                if hour < 0 {
                    expected.readings["sensor_living_room_temperature", default: [:]][ms(startTs)] = mean
                    expected.readings["sensor_house_energy", default: [:]][ms(startTs)] = meter
                }
            }
            // States every five minutes for a day, microseconds and all; some unavailable or unknown.
            var stateId: Int64 = 0
            for index in 0..<288 {
                let time = start + Double(index) * 300 + 0.123456
                for (metadata, attributes) in [(1, 1), (2, 2), (3, 3)] {
                    stateId += 1
                    let state: String
                    switch (metadata, index % 50) {
                    case (3, _): state = index % 2 == 0 ? "on" : "off"
                    case (_, 7): state = "unavailable"
                    case (_, 8): state = "unknown"
                    case (1, _): state = String(format: "%.2f", 19 + Double(index % 40) / 10)
                    default: state = String(format: "%.3f", 1024 + Double(index) * 0.041)
                    }
                    try db.execute(sql: """
                        INSERT INTO states (state_id, state, last_updated_ts, last_changed_ts, metadata_id, attributes_id)
                        VALUES (?, ?, ?, ?, ?, ?)
                        """, arguments: [stateId, state, time, time, metadata, attributes])
                    let code = ["sensor_living_room_temperature", "sensor_house_energy", "binary_sensor_door"][metadata - 1]
                    if let value = Double(state) {
                        expected.readings[code, default: [:]][ms(time)] = value
                    } else {
                        let reason = ["unavailable": "states 'unavailable'", "unknown": "states 'unknown'"][state] ?? "text states"
                        expected.skipped[reason, default: 0] += 1
                    }
                }
            }
        }
        return expected
    }

    @Test func importsStatesAndOlderStatisticsWithTheirMetadata() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/home-assistant_v2.db"
            let expected = try Self.makeDatabase(at: path)
            #expect(try ImportFormat.detect(path) == .homeAssistant)
            try await withTestServer { sensei in
                let run = ImportRun(client: ImportChecks.client(sensei))
                let summary = try await run.run([path])
                #expect(!summary.failed, "\(summary.text)")
                #expect(summary.sensorsCreated == 2)
                #expect(summary.points == expected.readings.values.reduce(0) { $0 + $1.count })
                for (reason, count) in expected.skipped { #expect(summary.skipped[reason] == count, "\(reason)") }

                let sensors = try await ImportChecks.client(sensei).sensors()
                let temperature = try #require(sensors.first { $0.code == "sensor_living_room_temperature" })
                #expect(temperature.name == "Living room temperature" && temperature.units == "°C")
                #expect(temperature.labels == ["source": "homeassistant", "entity_id": "sensor.living_room_temperature"])
                let energy = try #require(sensors.first { $0.code == "sensor_house_energy" })
                #expect(energy.name == "House energy" && energy.units == "kWh")
                #expect(energy.labels == ["source": "homeassistant", "entity_id": "sensor.house_energy"])
                // A meter is a counter, the temperature a gauge; the server took the kind,
                // so the summary has nothing to say of it.
                #expect(energy.kind == .counter && temperature.kind == .gauge)
                #expect(try await sensei.reader.get("/sensors/sensor_house_energy").json["kind"]?.stringValue == "counter")
                #expect(!summary.notes.contains { $0.contains("kind") }, "\(summary.text)")

                let stored = try await ImportChecks.readings(of: sensei)
                var byCode: [String: [Int64: Double]] = [:]
                for (key, value) in stored { byCode[key.series.measurement, default: [:]][key.milliseconds] = value }
                #expect(byCode.keys.sorted() == expected.readings.keys.sorted())
                for (code, readings) in expected.readings { #expect(byCode[code] == readings, "\(code)") }

                // Again: nothing twice, nothing new.
                let again = try await run.run([path])
                #expect(again.sensorsCreated == 0 && !again.failed)
                #expect(try await ImportChecks.readings(of: sensei).count == stored.count)
            }
        }
    }

    @Test func aWriteTokenImportsReadingsAndSaysWhatItLeft() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/home-assistant_v2.db"
            let expected = try Self.makeDatabase(at: path)
            try await withTestServer { sensei in
                let summary = try await ImportRun(client: ImportChecks.client(sensei, token: sensei.writeToken)).run([path])
                #expect(!summary.failed, "\(summary.text)")
                #expect(summary.sensorsCreated == 2)
                #expect(summary.problems.contains("names, units, labels and kinds of the sensors were left as they are"))
                let stored = try await ImportChecks.readings(of: sensei)
                #expect(stored.count == expected.readings.values.reduce(0) { $0 + $1.count })
            }
        }
    }
}
