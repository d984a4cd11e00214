import Dispatch
import Foundation
import Logging
import SenseiPostgres
import Synchronization
import Testing
import SenseiModels
import SenseiTestSupport
@testable import SenseiServer

/// PostgreSQL's write path, compaction and retention against SQLite's: the
/// same writes (device and receive-time readings, duplicates, replaced values,
/// late readings into packed hours, series ingest with its limits and
/// metadata) to a `SenseiStore` and a `PostgresStore` leave the same readings,
/// counts, latest readings and outcomes. PostgreSQL's readings are read here
/// by SQL (rows and decoded blocks), independent of its read path.
@Suite("PostgreSQL writes", .serialized)
struct PostgresWriteTests {
    static let hour: Int64 = 3_600_000
    static let day: Int64 = 86_400_000
    /// "Now" for these stores: 2025-01-10T00:00:00Z.
    static let now: Int64 = 1_736_467_200_000

    /// A SQLite and a PostgreSQL store, both empty.
    private func withStores(maxSensors: Int = SenseiStore.defaultMaxSensors,
                            _ body: (SenseiStore, PostgresStore) throws -> Void) async throws {
        try await withTemporaryDirectory { directory in
            let url = try await PostgresServer.started().database(for: directory)
            let sqlite = try SenseiStore(path: directory + "/s.sqlite", maxSensors: maxSensors)
            let postgres = try PostgresStore(url: url, maxSensors: maxSensors, logger: Logger(label: "test"))
            defer {
                try? sqlite.close()
                try? postgres.close()
            }
            // Thousands of queries to both stores: off the pool.
            try await offThePool { try body(sqlite, postgres) }
        }
    }

    private func insert(_ readings: [ReadingInput], code: String, at receivedAt: Int64,
                        into store: any ReadingStore) -> Result<Int, any Error> {
        insert(readings, reference: .code(code), at: receivedAt, into: store)
    }

    private func insert(_ readings: [ReadingInput], reference: SensorReference, at receivedAt: Int64,
                        into store: any ReadingStore) -> Result<Int, any Error> {
        CommitWait.waitFor { completion in
            store.insertReadings(readings, into: reference, createIfMissing: true,
                                 receivedAt: Timestamp(milliseconds: receivedAt), completion: completion)
        }
    }

    private func ingest(_ points: [SeriesPoint], allOrNothing: Bool = false, at receivedAt: Int64,
                        into store: any ReadingStore) -> Result<SeriesIngestOutcome, any Error> {
        CommitWait.waitFor { completion in
            store.ingest(points, allOrNothing: allOrNothing, receivedAt: Timestamp(milliseconds: receivedAt),
                         completion: completion)
        }
    }

    /// Every reading of a PostgreSQL sensor, rows and packed hours, in time order.
    private func storedReadings(of code: String, in store: PostgresStore) throws -> [Reading] {
        try store.read { session in
            var all: [(Int64, Double)] = []
            for row in try session.rows("""
                SELECT r.ts, r.value FROM readings r JOIN sensors s ON s.id = r.sensor_id WHERE s.code = \(code)
                """) {
                all.append(try row.decode((Int64, Double).self))
            }
            for row in try session.rows("""
                SELECT b.data FROM reading_blocks b JOIN sensors s ON s.id = b.sensor_id WHERE s.code = \(code)
                """) {
                let block = try ReadingBlock.decode(try row.decode([UInt8].self))
                all += zip(block.timestamps, block.values).map { ($0, $1) }
            }
            return all.sorted { $0.0 < $1.0 }.map { Reading(timestamp: Timestamp(milliseconds: $0.0), value: $0.1) }
        }
    }

    private func packedHours(_ store: PostgresStore) throws -> Int {
        try store.read { Int(try $0.row("SELECT count(*) FROM reading_blocks")?.decode(Int64.self) ?? 0) }
    }

    /// `counting`: the sensors whose counts and latest readings are compared; nil: all.
    private func expectSame(_ sqlite: SenseiStore, _ postgres: PostgresStore, codes: [String],
                            _ context: String, counting: [String]? = nil) throws {
        let compared = { (sensor: Sensor) in counting?.contains(sensor.code) ?? true }
        let expected = try sqlite.sensors().filter(compared).map { "\($0.code) \($0.count) \(String(describing: $0.latest))" }
        let found = try postgres.sensors().filter(compared).map { "\($0.code) \($0.count) \(String(describing: $0.latest))" }
        #expect(found == expected, "\(context): sensors")
        for code in codes {
            let rows = try sqlite.readings(of: .code(code), ReadingQuery(limit: 1_000_000, ascending: true)).1
            let stored = try storedReadings(of: code, in: postgres)
            #expect(stored == rows, "\(context): \(code) \(stored.count) readings, \(rows.count) in SQLite")
        }
    }

    private func randomReadings(count: Int, from start: Int64, span: Int64,
                                using random: inout SplitMix64) -> [ReadingInput] {
        (0..<count).map { _ in
            // Some without a timestamp, some on a few shared milliseconds.
            let kind = Int.random(in: 0..<10, using: &random)
            let ts: Timestamp? = kind == 0 ? nil
                : Timestamp(milliseconds: kind == 1 ? start : start + Int64.random(in: 0..<span, using: &random))
            return ReadingInput(timestamp: ts, value: (Double.random(in: -100...100, using: &random) * 100).rounded() / 100)
        }
    }

    @Test(arguments: 1...3)
    func writesCompactionAndRetentionLeaveWhatSQLiteLeaves(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        try await withStores { sqlite, postgres in
            let codes = ["a", "b", "c"]
            let stores: [any ReadingStore] = [sqlite, postgres]
            for round in 0..<6 {
                for code in codes {
                    let readings = randomReadings(count: Int.random(in: 1...300, using: &random),
                                                  from: Self.now - 4 * Self.day, span: 4 * Self.day, using: &random)
                    // Receive-time readings land near "now", some on a taken millisecond.
                    let receivedAt = Self.now - Int64(round % 2)
                    let counts = stores.map { try? insert(readings, code: code, at: receivedAt, into: $0).get() }
                    #expect(counts[0] == readings.count && counts[1] == counts[0])
                }
            }
            try expectSame(sqlite, postgres, codes: codes, "written")

            let expected = try sqlite.compact(now: Timestamp(milliseconds: Self.now), batchReadings: 200)
            let pass = try postgres.compact(now: Timestamp(milliseconds: Self.now), batchReadings: 200)
            #expect(pass.packedReadings == expected.packedReadings && pass.packedHours == expected.packedHours)
            #expect(pass.batches == expected.batches && pass.packedHours > 0)
            #expect(try packedHours(postgres) == pass.packedHours)
            try expectSame(sqlite, postgres, codes: codes, "compacted")

            // Late readings and replaced values into packed hours unpack them.
            for code in codes {
                let existing = try sqlite.readings(of: .code(code), ReadingQuery(limit: 20, ascending: true)).1
                var late = existing.map { ReadingInput(timestamp: $0.timestamp, value: $0.value + 0.5) }
                late += existing.prefix(3).map { ReadingInput(timestamp: $0.timestamp, value: $0.value) }
                late += randomReadings(count: 40, from: Self.now - 3 * Self.day, span: Self.day, using: &random)
                for store in stores { _ = try insert(late, code: code, at: Self.now, into: store).get() }
            }
            try expectSame(sqlite, postgres, codes: codes, "late and replaced")
            _ = try sqlite.compact(now: Timestamp(milliseconds: Self.now))
            _ = try postgres.compact(now: Timestamp(milliseconds: Self.now))
            try expectSame(sqlite, postgres, codes: codes, "repacked")

            // Retention cutting through a packed hour, in small batches.
            _ = try sqlite.updateSensor(.code("a"), name: nil, units: nil, valueType: nil, retentionDays: 2)
            _ = try postgres.read { session in
                try session.execute("UPDATE sensors SET retention_days = 2 WHERE code = 'a'")
            }
            let sweepAt = Timestamp(milliseconds: Self.now + Self.hour / 2 + 1_234)
            let expectedSweep = try sqlite.sweepRetention(now: sweepAt, batchSize: 100)
            let sweep = try postgres.sweepRetention(now: sweepAt, batchSize: 100)
            #expect(sweep.deleted == expectedSweep.deleted && sweep.batches == expectedSweep.batches)
            try expectSame(sqlite, postgres, codes: codes, "after retention")
            // Everything expires: no latest left.
            let allGone = try sqlite.sweepRetention(now: Timestamp(milliseconds: Self.now + 9 * Self.day))
            #expect(try postgres.sweepRetention(now: Timestamp(milliseconds: Self.now + 9 * Self.day)).deleted
                    == allGone.deleted)
            try expectSame(sqlite, postgres, codes: codes, "all expired")
        }
    }

    /// Writes queued at once, so that they share groups: on PostgreSQL most go
    /// together in one statement (`PostgresWritesTogether`), some alone (a
    /// new sensor, a value refused): the same outcomes, readings, counts and
    /// latest readings as SQLite's group commit leaves. Receive-time readings
    /// go to sensors of their own: where each lands depends on the groups
    /// (a group rolled back and run again leaves its milliseconds unused, on
    /// both backends), so those are compared in their order, not by millisecond.
    @Test(arguments: 1...2)
    func writesQueuedAtOnceLeaveWhatSQLiteLeaves(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        try await withStores { sqlite, postgres in
            let given = ["g0", "g1", "g2", "whole"], received = ["r0", "r1"]
            var ids: [String: Int64] = [:]
            for code in given + received + ["o"] {
                let valueType: ValueType = code == "whole" ? .int : .float
                _ = try sqlite.createSensor(code: code, name: nil, units: "", valueType: valueType)
                ids[code] = try postgres.createSensor(code: code, name: nil, units: "", valueType: valueType).id
            }
            // Each sensor written once by code and once by id: the node knows them.
            for code in given + received + ["o"] {
                for (offset, reference) in [SensorReference.code(code), .id(ids[code]!)].enumerated() {
                    for store in [sqlite, postgres] as [any ReadingStore] {
                        _ = try insert([ReadingInput(timestamp: Timestamp(milliseconds: Self.now - 1_000 + Int64(offset)), value: 1)],
                                       reference: reference, at: Self.now, into: store).get()
                    }
                }
            }
            func reference(_ code: String, _ random: inout SplitMix64) -> SensorReference {
                Bool.random(using: &random) ? .code(code) : .id(ids[code]!)
            }
            var writes: [(SensorReference, [ReadingInput])] = []
            for _ in 0..<400 {
                switch Int.random(in: 0..<10, using: &random) {
                case 0:
                    // A sensor not made yet: made by the write.
                    writes.append((.code("new\(Int.random(in: 0..<3, using: &random))"),
                                   [ReadingInput(timestamp: Timestamp(milliseconds: Self.now), value: 1)]))
                case 1, 2:
                    let count = Int.random(in: 1...3, using: &random)
                    writes.append((reference(received.randomElement(using: &random)!, &random),
                                   (0..<count).map { _ in ReadingInput(timestamp: nil, value: Double(Int.random(in: 0..<100, using: &random))) }))
                default:
                    // Some on shared milliseconds, some 0.5 (refused by "whole").
                    let readings = (0..<Int.random(in: 1...20, using: &random)).map { _ in
                        ReadingInput(timestamp: Timestamp(milliseconds: Self.now - Int64.random(in: 0..<200, using: &random)),
                                     value: Double(Int.random(in: -5...5, using: &random)) + (Int.random(in: 0..<30, using: &random) == 0 ? 0.5 : 0))
                    }
                    writes.append((reference(given.randomElement(using: &random)!, &random), readings))
                }
            }
            let outcomes = queuedAtOnce(writes, into: [sqlite, postgres])
            #expect(outcomes[0] == outcomes[1])
            #expect(outcomes[1].contains { $0.hasPrefix("failure") } && outcomes[1].contains { $0.hasPrefix("success") })
            // Both ways were taken.
            let together = postgres.groupCommit.writesTogether.load(ordering: .relaxed)
            #expect(together > 100 && together < writes.count, "\(together) of \(writes.count) together")
            try expectSame(sqlite, postgres, codes: given + ["new0", "new1", "new2"], "queued at once",
                           counting: given + ["new0", "new1", "new2"])
            for code in received {
                let expected = try sqlite.readings(of: .code(code), ReadingQuery(limit: 100_000, ascending: true)).1
                let stored = try storedReadings(of: code, in: postgres)
                #expect(stored.map(\.value) == expected.map(\.value), "\(code)")
                #expect(try postgres.sensor(.code(code))?.count == expected.count)
                #expect(try postgres.sensor(.code(code))?.latest?.value == expected.last?.value)
            }
            // A write that runs alone (receive-time and device readings mixed)
            // and one that goes together, on the same millisecond: the later wins.
            let ordered = (0..<60).flatMap { i -> [(SensorReference, [ReadingInput])] in
                let ts = Timestamp(milliseconds: Self.now - 500 - Int64(i % 7))
                return [(.code("o"), [ReadingInput(timestamp: nil, value: Double(i)), ReadingInput(timestamp: ts, value: Double(i))]),
                        (.id(ids["o"]!), [ReadingInput(timestamp: ts, value: Double(i) + 0.25)])]
            }
            let orderedOutcomes = queuedAtOnce(ordered, into: [sqlite, postgres])
            #expect(orderedOutcomes[0] == orderedOutcomes[1])
            try expectSame(sqlite, postgres, codes: ["o"], "alone and together on one sensor", counting: ["o"])
        }
    }

    /// Each write's outcome, store by store, all queued at once.
    private func queuedAtOnce(_ writes: [(SensorReference, [ReadingInput])], into stores: [any ReadingStore]) -> [[String]] {
        stores.map { store in
            let results = Mutex<[String?]>(Array(repeating: nil, count: writes.count))
            let done = DispatchGroup()
            for (index, (reference, readings)) in writes.enumerated() {
                done.enter()
                store.insertReadings(readings, into: reference, createIfMissing: true,
                                     receivedAt: Timestamp(milliseconds: Self.now)) { result in
                    results.withLock { $0[index] = "\(result)" }
                    done.leave()
                }
            }
            done.wait()
            return results.withLock { $0.map { $0 ?? "none" } }
        }
    }

    /// A node remembers the sensors it writes to (`PostgresWritesTogether`), but
    /// never trusts what it remembers: a sensor another node deleted and made
    /// again, or whose type it changed, or a millisecond it took, is noticed.
    @Test func aNodeNoticesWhatAnotherChangedUnderTheSensorsItWrites() async throws {
        try await withTemporaryDirectory { directory in
            let url = try await PostgresServer.started().database(for: directory)
            let a = try PostgresStore(url: url, node: "a", logger: Logger(label: "a"))
            let b = try PostgresStore(url: url, node: "b", logger: Logger(label: "b"))
            defer {
                try? a.close()
                try? b.close()
            }
            func at(_ offset: Int64) -> Timestamp { Timestamp(milliseconds: Self.now + offset) }
            // a writes twice (the second time from memory).
            for offset: Int64 in [0, 1] {
                _ = try insert([ReadingInput(timestamp: at(offset), value: 1.5)], code: "t", at: Self.now, into: a).get()
            }
            // b makes "t" again, whole numbers only: a's 2.5 is refused, a's 3 lands in the new sensor.
            try b.deleteSensor(.code("t"))
            _ = try b.createSensor(code: "t", name: nil, units: "", valueType: .int)
            #expect(throws: StoreError.invalidValue(index: 0, reason: ValueType.int.problem(with: 2.5)!)) {
                try insert([ReadingInput(timestamp: at(2), value: 2.5)], code: "t", at: Self.now, into: a).get()
            }
            _ = try insert([ReadingInput(timestamp: at(3), value: 3)], code: "t", at: Self.now, into: a).get()
            #expect(try storedReadings(of: "t", in: b) == [Reading(timestamp: at(3), value: 3)])
            #expect(try b.sensor(.code("t"))?.count == 1)
            // b changes the type back: a's 2.5 is taken again.
            _ = try b.updateSensor(.code("t"), name: nil, units: nil, valueType: .float)
            _ = try insert([ReadingInput(timestamp: at(4), value: 2.5)], code: "t", at: Self.now, into: a).get()
            // b takes the millisecond a's next receive-time reading would land on: it lands on the next.
            _ = try insert([ReadingInput(timestamp: at(100), value: 7)], code: "t", at: Self.now, into: b).get()
            _ = try insert([ReadingInput(timestamp: nil, value: 8)], code: "t", at: Self.now + 100, into: a).get()
            _ = try insert([ReadingInput(timestamp: nil, value: 9)], code: "t", at: Self.now + 100, into: a).get()
            #expect(try storedReadings(of: "t", in: a).map { [$0.timestamp.milliseconds - Self.now, Int64($0.value)] }
                    == [[3, 3], [4, 2], [100, 7], [101, 8], [102, 9]])
            let sensor = try #require(try a.sensor(.code("t")))
            #expect(sensor.count == 5)
            #expect(sensor.latest == Reading(timestamp: at(102), value: 9))
            // b makes the same sensor whole numbers only, behind a's memory of a float.
            _ = try b.updateSensor(.code("t"), name: nil, units: nil, valueType: .int)
            #expect(throws: StoreError.invalidValue(index: 0, reason: ValueType.int.problem(with: 2.5)!)) {
                try insert([ReadingInput(timestamp: at(200), value: 2.5)], code: "t", at: Self.now, into: a).get()
            }
            #expect(try a.sensor(.code("t"))?.count == 5)
        }
    }

    /// A database made at schema version 1, whose readings had a foreign
    /// key, is taken to version 2 by the next server to open it; deleting a
    /// sensor still deletes its readings, and only its.
    @Test func aVersion1DatabaseIsMigratedAndASensorsDeletionStillTakesItsReadings() async throws {
        try await withTemporaryDirectory { directory in
            let server = try await PostgresServer.started()
            let url = try await server.database(for: directory)
            func open() throws -> PostgresStore { try PostgresStore(url: url, logger: Logger(label: "test")) }
            var store = try open()
            for code in ["gone", "kept"] {
                _ = try insert([ReadingInput(timestamp: Timestamp(milliseconds: Self.now), value: 1),
                                ReadingInput(timestamp: Timestamp(milliseconds: Self.now + 1), value: 2)],
                               code: code, at: Self.now, into: store).get()
            }
            try store.close()
            let downgrade = try await server.psql("""
                ALTER TABLE readings ADD CONSTRAINT readings_sensor_id_fkey
                    FOREIGN KEY (sensor_id) REFERENCES sensors (id) ON DELETE CASCADE;
                DELETE FROM sensei_schema WHERE version > 1;
                """, database: url.database)
            #expect(downgrade.status == 0, "\(downgrade.error)")
            store = try open()
            defer { try? store.close() }
            let (keys, version) = try store.read { session in
                (try session.row("SELECT count(*) FROM pg_constraint WHERE conrelid = 'readings'::regclass AND contype = 'f'")?
                    .decode(Int64.self),
                 try session.row("SELECT max(version) FROM sensei_schema")?.decode(Int64.self))
            }
            #expect(keys == 0)
            #expect(version == Int64(PostgresStore.schemaVersion))
            try store.deleteSensor(.code("gone"))
            #expect(try storedReadings(of: "kept", in: store).count == 2)
            let left = try store.read { try $0.row("SELECT count(*) FROM readings")?.decode(Int64.self) }
            #expect(left == 2)
            #expect(throws: StoreError.sensorNotFound(.code("gone"))) { try store.deleteSensor(.code("gone")) }
        }
    }

    @Test func valueErrorsAndMissingSensorsAreRefusedAloneInTheirGroup() async throws {
        try await withStores(maxSensors: 2) { sqlite, postgres in
            for store in [sqlite, postgres] as [any ReadingStore] {
                _ = try insert([ReadingInput(timestamp: nil, value: 1)], code: "flag", at: Self.now, into: store).get()
            }
            _ = try sqlite.updateSensor(.code("flag"), name: nil, units: nil, valueType: .bool)
            _ = try postgres.read { try $0.execute("UPDATE sensors SET value_type = 'bool' WHERE code = 'flag'") }
            // Writes in one group: the bad ones fail alone, the good one is stored, on both alike.
            var outcomes: [[String: String]] = []
            for store in [sqlite, postgres] as [any ReadingStore] {
                let results = Mutex<[String: String]>([:])
                let done = DispatchGroup()
                let writes: [(String, [ReadingInput])] = [
                    ("flag", [ReadingInput(timestamp: nil, value: 1), ReadingInput(timestamp: nil, value: 0.5)]),
                    ("other", [ReadingInput(timestamp: Timestamp(milliseconds: Self.now), value: 3)]),
                    ("third", [ReadingInput(timestamp: nil, value: 3)]),
                ]
                for (code, readings) in writes {
                    done.enter()
                    store.insertReadings(readings, into: .code(code), createIfMissing: true,
                                         receivedAt: Timestamp(milliseconds: Self.now)) { result in
                        results.withLock { $0[code] = "\(result)" }
                        done.leave()
                    }
                }
                done.wait()
                var outcome = results.withLock { $0 }
                outcome["missing"] = "\(CommitWait.waitFor { completion in store.insertReadings([ReadingInput(timestamp: nil, value: 1)], into: .id(999), createIfMissing: false, receivedAt: .now(), completion: completion) })"
                outcomes.append(outcome)
            }
            #expect(outcomes[0]["other"] == "success(1)", "\(outcomes[0])")
            #expect(outcomes[1] == outcomes[0])
            try expectSame(sqlite, postgres, codes: ["flag", "other"], "after refusals")
        }
    }

    @Test func seriesIngestReportsAndStoresAsSQLite() async throws {
        try await withStores(maxSensors: 4) { sqlite, postgres in
            func series(_ host: String, name: String? = nil, units: String? = nil, kind: SensorKind? = nil,
                        valueType: ValueType = .float) -> Series {
                Series(identity: SeriesIdentity(source: "influx", parts: ["cpu", host]), preferredCode: "cpu_\(host)",
                       labels: ["host": host], name: name, units: units, valueType: valueType, kind: kind)
            }
            let stores: [any ReadingStore] = [sqlite, postgres]
            let calls: [(points: [SeriesPoint], allOrNothing: Bool)] = [
                ([SeriesPoint(series: series("a", name: "CPU a", units: "%"), value: 1, timestamp: Timestamp(milliseconds: 1_000)),
                  SeriesPoint(series: series("b", valueType: .bool), value: 1, timestamp: nil),
                  SeriesPoint(series: series("b", valueType: .bool), value: 0.5, timestamp: nil),
                  SeriesPoint(series: series("a"), value: .nan, timestamp: nil)], false),
                // Metadata from ingest replaces ingest's own; the sensor limit refuses new series' points.
                ([SeriesPoint(series: series("a", name: "CPU A", kind: .counter), value: 2, timestamp: Timestamp(milliseconds: 1_000)),
                  SeriesPoint(series: series("c"), value: 3, timestamp: nil),
                  SeriesPoint(series: series("d"), value: 4, timestamp: nil),
                  SeriesPoint(series: series("e"), value: 5, timestamp: nil)], false),
                ([SeriesPoint(series: series("a"), value: 6, timestamp: nil),
                  SeriesPoint(series: series("b", valueType: .bool), value: 7, timestamp: nil)], true),
                ([SeriesPoint(series: series("a"), value: 8, timestamp: nil),
                  SeriesPoint(series: series("c"), value: 9, timestamp: Timestamp(milliseconds: 5_000))], true),
            ]
            for (index, call) in calls.enumerated() {
                let outcomes = stores.map { "\(ingest(call.points, allOrNothing: call.allOrNothing, at: Self.now + Int64(index), into: $0))" }
                #expect(outcomes[1] == outcomes[0], "call \(index)")
            }
            let describe: (Sensor) -> String = {
                "\($0.code) \($0.name) \($0.units) \($0.kind) \($0.valueType) \($0.labels.sorted { $0.key < $1.key })"
            }
            #expect(try postgres.sensors().map(describe) == sqlite.sensors().map(describe))
            try expectSame(sqlite, postgres, codes: try sqlite.sensors().map(\.code), "ingested")
        }
    }

    /// Every connection of the server's pool cut, as a failover or a
    /// restarted PostgreSQL does: writes meanwhile are answered 503 with
    /// Retry-After (nothing of them stored), then the server reconnects, and
    /// exactly the acknowledged readings are there.
    @Test func aLostConnectionAnswers503AndOnlyAcknowledgedReadingsAreStored() async throws {
        try await withTemporaryDirectory { directory in
            let postgres = try await PostgresServer.started()
            let url = try await postgres.database(for: directory)
            try await withTestServer(configure: { $0.database = url }) { server in
                try expectCreated(try await server.writer.post("/sensors/porch/data", json: #"{"value": 1}"#))
                let cut = try await postgres.psql("""
                    SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '\(url.database)'
                    """)
                #expect(cut.status == 0, "\(cut.error)")
                var acknowledged = 1, refused = 0
                for value in 2...30 {
                    let response = try await server.writer.post("/sensors/porch/data", json: #"{"value": \#(value)}"#)
                    if response.status == 201 {
                        acknowledged += 1
                    } else {
                        expectError(response, 503, "write \(value) after the cut", mentioning: "unavailable")
                        #expect(response.headers["retry-after"] != nil)
                        refused += 1
                    }
                }
                #expect(acknowledged > 1 && refused <= 10, "\(refused) refused")
                #expect(try await server.reader.get("/sensors/porch").json["count"] == .number(Double(acknowledged)))
                try await expectStillHealthy(server)
            }
        }
    }
}
