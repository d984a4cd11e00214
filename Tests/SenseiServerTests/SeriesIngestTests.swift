import Foundation
import Synchronization
import GRDB
import SenseiTestSupport
import Testing
import SenseiModels
@testable import SenseiServer

/// The store's series ingest (`SenseiStore.ingest`), which line protocol and
/// MQTT write through, on a real SQLite file.
@Suite("Series ingest")
struct SeriesIngestTests {
    static func series(_ measurement: String, host: String, field: String, valueType: ValueType = .float,
                       name: String? = nil, units: String? = nil) -> Series {
        Series(identity: SeriesIdentity(source: "influx", parts: [measurement, "host", host, field]),
               preferredCode: "\(measurement)_\(host)_\(field)",
               labels: ["measurement": measurement, "host": host, "field": field],
               name: name, units: units, valueType: valueType)
    }

    static func at(_ ms: Int64) -> Timestamp { Timestamp(milliseconds: ms) }

    /// Random points over random series, some timestamps repeated (the later
    /// value wins), some at receive time: the stored readings are exactly
    /// what the points say, one sensor a series, counts and rollups agree.
    @Test func seededRandomPointsLandAsTheirReadings() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/s.sqlite")
            var random = SplitMix64(seed: 12)
            let allSeries = (0..<40).map { Self.series("m\($0 % 5)", host: "h\($0 / 5)", field: "f") }
            var expected: [SeriesIdentity: [Int64: Double]] = [:]
            var receiveTimePoints: [SeriesIdentity: Int] = [:]
            let base: Int64 = 1_736_424_000_000
            for _ in 0..<20 {
                var points: [SeriesPoint] = []
                for _ in 0..<Int.random(in: 1...400, using: &random) {
                    let series = allSeries[Int.random(in: 0..<allSeries.count, using: &random)]
                    let value = Double(Int.random(in: -1000...1000, using: &random)) / 8
                    if Int.random(in: 0..<10, using: &random) == 0 {
                        points.append(SeriesPoint(series: series, value: value))
                        receiveTimePoints[series.identity, default: 0] += 1
                    } else {
                        let ts = base + Int64.random(in: 0..<(3 * 3_600_000), using: &random) / 250 * 250
                        points.append(SeriesPoint(series: series, value: value, timestamp: Self.at(ts)))
                        expected[series.identity, default: [:]][ts] = value
                    }
                }
                let outcome = try store.ingest(points, receivedAt: Self.at(base + 4 * 3_600_000))
                #expect(outcome.accepted == points.count && outcome.refused.isEmpty)
            }
            let mapping = try store.pool.read { db in
                try Row.fetchAll(db, sql: "SELECT identity, sensor_id FROM series").map { ($0[0] as String, $0[1] as Int64) }
            }
            #expect(mapping.count == Set(expected.keys).union(receiveTimePoints.keys).count)
            for (identity, sensorID) in mapping {
                let key = allSeries.first { $0.identity.key == identity }!.identity
                let rows = try store.pool.read { db in
                    try Row.fetchAll(db, sql: "SELECT ts, value FROM readings WHERE sensor_id = ? ORDER BY ts",
                                     arguments: [sensorID]).map { ($0[0] as Int64, $0[1] as Double) }
                }
                let timed = rows.filter { $0.0 < base + 4 * 3_600_000 }
                #expect(timed.map(\.0) == expected[key, default: [:]].keys.sorted(), "\(identity)")
                #expect(timed.map(\.1) == expected[key, default: [:]].keys.sorted().map { expected[key]![$0]! })
                #expect(rows.count - timed.count == receiveTimePoints[key, default: 0], "\(identity)")
                #expect(try store.sensor(.id(sensorID))?.count == rows.count)
            }
            try expectRollupsMatchReadings(store, "after random ingest")
            try store.close()
        }
    }

    /// A new series makes a sensor with the readable code, labels with
    /// `source`, name and units; the same series again finds it.
    @Test func newSeriesMakesALabelledSensorFoundAgain() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/s.sqlite")
            let cpu = Self.series("cpu", host: "nas", field: "usage_idle", name: "CPU idle", units: "%")
            let first = try store.ingest([SeriesPoint(series: cpu, value: 97.5, timestamp: Self.at(1000))])
            #expect(first == SeriesIngestOutcome(accepted: 1, createdSensors: 1))
            let sensor = try #require(try store.sensor(.code("cpu_nas_usage_idle")))
            #expect(sensor.name == "CPU idle" && sensor.units == "%" && sensor.valueType == .float)
            #expect(sensor.labels == ["source": "influx", "measurement": "cpu", "host": "nas", "field": "usage_idle"])
            let second = try store.ingest([SeriesPoint(series: cpu, value: 96, timestamp: Self.at(2000))])
            #expect(second == SeriesIngestOutcome(accepted: 1, createdSensors: 0))
            #expect(try store.sensors().map(\.count) == [2])
            #expect(try store.sensors(labeled: [("host", "nas"), ("source", "influx")]).map(\.code) == ["cpu_nas_usage_idle"])
            #expect(try store.sensors(labeled: [("host", "nas"), ("source", "mqtt")]).isEmpty)
        }
    }

    /// Renaming and re-coding never split a series; deleting the sensor
    /// forgets it, so the series makes a new sensor next time.
    @Test func mappingSurvivesRenameAndEndsWithDelete() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/s.sqlite")
            let temp = Self.series("temp", host: "porch", field: "value")
            try store.ingest([SeriesPoint(series: temp, value: 1, timestamp: Self.at(1000))])
            let id = try #require(try store.sensor(.code("temp_porch_value"))).id
            _ = try store.updateSensor(.id(id), name: "Porch", units: "°C", valueType: nil)
            try store.pool.write { db in try db.execute(sql: "UPDATE sensors SET code = 'porch' WHERE id = ?", arguments: [id]) }
            // A new sensor took the old code meanwhile: the series still goes to its own.
            _ = try store.createSensor(code: "temp_porch_value", name: nil, units: "", valueType: .float)
            try store.ingest([SeriesPoint(series: temp, value: 2, timestamp: Self.at(2000))])
            #expect(try store.sensor(.id(id))?.count == 2)
            #expect(try store.sensor(.code("temp_porch_value"))?.count == 0)
            try store.close()

            // Across a restart too.
            let reopened = try SenseiStore(path: directory + "/s.sqlite")
            try reopened.ingest([SeriesPoint(series: temp, value: 3, timestamp: Self.at(3000))])
            #expect(try reopened.sensor(.id(id))?.count == 3)
            try reopened.deleteSensor(.id(id))
            let outcome = try reopened.ingest([SeriesPoint(series: temp, value: 4, timestamp: Self.at(4000))])
            #expect(outcome.createdSensors == 1)
            // The old code is another sensor's now: the new one gets the hashed form.
            let made = try #require(try reopened.sensors(labeled: [("host", "porch")]).first)
            #expect(made.id != id && made.count == 1)
            #expect(made.code.hasPrefix("temp_porch_value_") && made.code.count == 25)
        }
    }

    /// Names and units from the protocol follow later metadata until a
    /// person sets them.
    @Test func ingestMetadataUpdatesOnlyWhatNoPersonSet() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/s.sqlite")
            var room = Self.series("°C", host: "ha", field: "value", name: "Living room", units: "°C")
            try store.ingest([SeriesPoint(series: room, value: 21, timestamp: Self.at(1000))])
            let id = try #require(try store.sensors().first).id
            room.name = "Lounge"
            room.units = "°F"
            try store.ingest([SeriesPoint(series: room, value: 70, timestamp: Self.at(2000))])
            #expect(try store.sensor(.id(id)).map { [$0.name, $0.units] } == ["Lounge", "°F"])
            _ = try store.updateSensor(.id(id), name: "My lounge", units: nil, valueType: nil)
            room.name = "Salon"
            room.units = "K"
            try store.ingest([SeriesPoint(series: room, value: 294, timestamp: Self.at(3000))])
            #expect(try store.sensor(.id(id)).map { [$0.name, $0.units] } == ["My lounge", "K"])
            // A point without metadata changes nothing.
            room.name = nil
            room.units = nil
            try store.ingest([SeriesPoint(series: room, value: 295, timestamp: Self.at(4000))])
            #expect(try store.sensor(.id(id)).map { [$0.name, $0.units] } == ["My lounge", "K"])
        }
    }

    /// Past `maxSensors`, a call creates none of its new sensors and says
    /// which points it refused; its points for existing sensors are stored,
    /// or, all-or-nothing, none.
    @Test func sensorLimitRefusesEveryNewSensorOfTheCall() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/s.sqlite", maxSensors: 3)
            let a = Self.series("m", host: "a", field: "v")
            let b = Self.series("m", host: "b", field: "v")
            let c = Self.series("m", host: "c", field: "v")
            let d = Self.series("m", host: "d", field: "v")
            try store.ingest([SeriesPoint(series: a, value: 1, timestamp: Self.at(1)),
                              SeriesPoint(series: b, value: 1, timestamp: Self.at(1))])
            let outcome = try store.ingest([
                SeriesPoint(series: c, value: 2, timestamp: Self.at(2)),
                SeriesPoint(series: a, value: 2, timestamp: Self.at(2)),
                SeriesPoint(series: d, value: 2, timestamp: Self.at(2)),
                SeriesPoint(series: c, value: 3, timestamp: Self.at(3)),
            ])
            #expect(outcome.accepted == 1 && outcome.createdSensors == 0)
            #expect(outcome.refused.map(\.index) == [0, 2, 3])
            #expect(outcome.refused.allSatisfy { $0.error == .sensorLimit(limit: 3) })
            #expect(try store.sensors().map(\.count) == [2, 1])
            #expect(throws: SeriesIngestError.sensorLimit(limit: 3)) {
                try store.ingest([SeriesPoint(series: a, value: 4, timestamp: Self.at(4)),
                                  SeriesPoint(series: c, value: 4, timestamp: Self.at(4)),
                                  SeriesPoint(series: d, value: 4, timestamp: Self.at(4))], allOrNothing: true)
            }
            #expect(try store.sensors().map(\.count) == [2, 1])
            // One more fits.
            #expect(try store.ingest([SeriesPoint(series: c, value: 5, timestamp: Self.at(5))]).createdSensors == 1)
            // REST creation is held to the same limit.
            #expect(throws: StoreError.sensorLimit(3)) {
                try store.insertReadings([ReadingInput(timestamp: nil, value: 1)], into: .code("rest"), createIfMissing: true)
            }
            #expect(throws: StoreError.sensorLimit(3)) {
                try store.createSensor(code: "rest", name: nil, units: "", valueType: .float)
            }
        }
    }

    /// A point whose value the sensor's type refuses is refused alone.
    @Test func valueTypeConflictRefusesThatPointOnly() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/s.sqlite")
            let count = Self.series("net", host: "r", field: "packets", valueType: .int)
            let outcome = try store.ingest([
                SeriesPoint(series: count, value: 10, timestamp: Self.at(1)),
                SeriesPoint(series: count, value: 10.5, timestamp: Self.at(2)),
                SeriesPoint(series: count, value: .nan, timestamp: Self.at(3)),
                SeriesPoint(series: count, value: 11, timestamp: Self.at(4)),
            ])
            #expect(outcome.accepted == 2)
            #expect(outcome.refused == [
                SeriesRefusal(index: 1, error: .valueType(code: "net_r_packets", valueType: .int,
                                                          problem: "10.5 is not a whole number")),
                SeriesRefusal(index: 2, error: .notFinite),
            ])
            #expect(try store.sensor(.code("net_r_packets"))?.valueType == .int)
        }
    }

    /// The same series and timestamp twice is one reading, the later value winning.
    @Test func duplicatePointsAreOneReading() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/s.sqlite")
            let s = Self.series("m", host: "a", field: "v")
            try store.ingest([SeriesPoint(series: s, value: 1, timestamp: Self.at(1000)),
                              SeriesPoint(series: s, value: 2, timestamp: Self.at(1000))])
            try store.ingest([SeriesPoint(series: s, value: 3, timestamp: Self.at(1000))])
            let sensor = try #require(try store.sensors().first)
            #expect(sensor.count == 1 && sensor.latest == Reading(timestamp: Self.at(1000), value: 3))
            try expectRollupsMatchReadings(store, "after duplicates")
        }
    }

    /// Thousands of points over hundreds of series are one transaction.
    @Test func manyPointsShareOneCommit() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/s.sqlite")
            let points = (0..<5_000).map { index in
                SeriesPoint(series: Self.series("m", host: "h\(index % 250)", field: "v"), value: Double(index),
                            timestamp: Self.at(Int64(index)))
            }
            let before = store.changeCount
            let outcome = try store.ingest(points)
            #expect(outcome.accepted == 5_000 && outcome.createdSensors == 250)
            #expect(store.changeCount == before + 1)
        }
    }

    /// Commit observers (metrics, the live stream) see ingested readings as
    /// they see REST ones: one `StoredReadings` a sensor.
    @Test func commitObserversSeeIngestedReadings() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/s.sqlite")
            let seen = Mutex<[StoredReadings]>([])
            store.groupCommit.onCommit.withLock {
                $0.append(CommitObserver { commit in
                    seen.withLock { $0 += commit.stored }
                })
            }
            store.tap.attach()
            let a = Self.series("m", host: "a", field: "v")
            let b = Self.series("m", host: "b", field: "v")
            try store.ingest([SeriesPoint(series: a, value: 1, timestamp: Self.at(1)),
                              SeriesPoint(series: b, value: 2, timestamp: Self.at(1)),
                              SeriesPoint(series: a, value: 3, timestamp: Self.at(2))])
            let stored = seen.withLock { $0 }
            #expect(stored.map(\.code) == ["m_a_v", "m_b_v"] && stored.map(\.count) == [2, 1])
            #expect(stored[0].readings == [Reading(timestamp: Self.at(1), value: 1), Reading(timestamp: Self.at(2), value: 3)])
        }
    }

    /// The code rule: readable when it fits and is free, else cut with a hash.
    @Test func codesAreReadableDeterministicAndFree() throws {
        let identity = SeriesIdentity(source: "influx", parts: ["x"])
        #expect(SeriesCode.sanitized("°C living room!") == "C_living_room")
        #expect(SeriesCode.sanitized("__") == "series")
        #expect(SeriesCode.code(preferred: "a.b/c", identity: identity) { _ in false } == "a_b_c")
        let long = String(repeating: "abcdefghij", count: 6)
        let cut = SeriesCode.code(preferred: long, identity: identity) { _ in false }
        #expect(cut.count == 50 && cut.hasPrefix(String(long.prefix(41)) + "_") && SensorCode.isValid(cut))
        #expect(SeriesCode.code(preferred: long, identity: identity) { _ in false } == cut)
        let other = SeriesCode.code(preferred: long, identity: SeriesIdentity(source: "influx", parts: ["y"])) { _ in false }
        #expect(other != cut)
        let taken: Set = ["a_b_c", SeriesCode.code(preferred: "a_b_c", identity: identity) { $0 == "a_b_c" }]
        let third = SeriesCode.code(preferred: "a_b_c", identity: identity) { taken.contains($0) }
        #expect(!taken.contains(third) && SensorCode.isValid(third))
    }
}
