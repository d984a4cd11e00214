import GRDB
import Testing
import SenseiModels
import SenseiTestSupport
@testable import SenseiServer

/// A store whose old readings are packed (`SenseiStore.compact`) answers every
/// query exactly as the same data kept as rows, through late and replaced
/// readings in packed hours, retention cutting through a block, and repacking.
@Suite("Compaction", .serialized)
struct CompactionTests {
    static let hour: Int64 = 3_600_000
    static let day: Int64 = 86_400_000
    /// "Now" for these stores: 2025-01-10T00:00:00Z.
    static let now: Int64 = 1_736_467_200_000

    /// Writes the same readings to both stores, in the same batches.
    private func write(_ readings: [ReadingInput], code: String, to stores: [SenseiStore]) throws {
        for store in stores {
            try store.insertReadings(readings, into: .code(code), createIfMissing: true,
                                     receivedAt: Timestamp(milliseconds: Self.now))
        }
    }

    private func randomReadings(count: Int, from start: Int64, span: Int64, decimals: Int,
                                using random: inout SplitMix64) -> [ReadingInput] {
        (0..<count).map { _ in
            let ts = start + Int64.random(in: 0..<span, using: &random)
            let scale = (0..<min(decimals, 6)).reduce(1.0) { product, _ in product * 10 }
            let value = decimals > 6
                ? Double.random(in: -100...100, using: &random)
                : (Double.random(in: -100...100, using: &random) * scale).rounded() / scale
            return ReadingInput(timestamp: Timestamp(milliseconds: ts), value: value)
        }
    }

    private func expectSameAnswers(_ packed: SenseiStore, _ raw: SenseiStore, codes: [String],
                                   using random: inout SplitMix64, _ context: String) throws {
        #expect(try packed.sensors().map(\.count) == raw.sensors().map(\.count), "\(context): counts")
        #expect(try packed.sensors().map(\.latest) == raw.sensors().map(\.latest), "\(context): latest")
        let first = Self.now - 6 * Self.day
        for code in codes {
            // Everything, both ways, as one page.
            for ascending in [true, false] {
                let query = ReadingQuery(limit: 100_000, ascending: ascending)
                #expect(try packed.readings(of: .code(code), query).1 == raw.readings(of: .code(code), query).1,
                        "\(context): all of \(code)")
            }
            for _ in 0..<12 {
                let a = first + Int64.random(in: 0..<(7 * Self.day), using: &random)
                let b = a + Int64.random(in: 0..<(3 * Self.day), using: &random)
                let query = ReadingQuery(
                    after: Bool.random(using: &random) ? Timestamp(milliseconds: a) : nil,
                    before: Bool.random(using: &random) ? Timestamp(milliseconds: b) : nil,
                    limit: Int.random(in: 0...3_000, using: &random), ascending: Bool.random(using: &random),
                    offset: Int.random(in: 0...500, using: &random))
                #expect(try packed.readings(of: .code(code), query).1 == raw.readings(of: .code(code), query).1,
                        "\(context): \(code) \(query)")
                let count = Int.random(in: 1...300, using: &random)
                let packedBuckets = try packed.buckets(of: .code(code), after: Timestamp(milliseconds: a),
                                                       before: Timestamp(milliseconds: b), count: count).1
                let rawSensor = try #require(try raw.sensor(.code(code)))
                let expected = try rawBuckets(raw, sensorID: rawSensor.id, after: a, before: b, count: count)
                expectSameBuckets(packedBuckets, expected, "\(context): \(code) buckets \(a)...\(b) / \(count)")
            }
        }
    }

    private func packedHours(_ store: SenseiStore) throws -> Int {
        try store.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM reading_blocks") ?? 0 }
    }

    @Test(arguments: 1...4)
    func aCompactedStoreAnswersAsTheRawOne(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        // Tens of thousands of store calls: off the pool.
        try await offThePool { try await withTemporaryDirectory { directory in
            let packed = try SenseiStore(path: directory + "/packed.sqlite")
            let raw = try SenseiStore(path: directory + "/raw.sqlite")
            let stores = [packed, raw]
            let codes = ["a", "b", "c"]
            for (index, code) in codes.enumerated() {
                // Five days up to now, some of it dense, in batches.
                for _ in 0..<8 {
                    let readings = randomReadings(count: Int.random(in: 1...400, using: &random),
                                                  from: Self.now - 5 * Self.day, span: 5 * Self.day,
                                                  decimals: index * 3 + Int(seed % 3), using: &random)
                    try write(readings, code: code, to: stores)
                }
            }
            try expectSameAnswers(packed, raw, codes: codes, using: &random, "before compaction")

            let pass = try packed.compact(now: Timestamp(milliseconds: Self.now), batchReadings: 300)
            #expect(pass.packedReadings > 0 && pass.batches > 1)
            #expect(try packedHours(packed) == pass.packedHours)
            #expect(try packed.integrityCheck() == "ok")
            try expectSameAnswers(packed, raw, codes: codes, using: &random, "compacted")

            // Late readings and replaced values in packed hours, then a repack.
            for code in codes {
                var late = randomReadings(count: 50, from: Self.now - 5 * Self.day, span: 4 * Self.day,
                                          decimals: 2, using: &random)
                let existing = try raw.readings(of: .code(code), ReadingQuery(limit: 30, ascending: true)).1
                late += existing.map { ReadingInput(timestamp: $0.timestamp, value: $0.value + 0.5) }
                late += existing.prefix(5).map { ReadingInput(timestamp: $0.timestamp, value: $0.value) }
                try write(late, code: code, to: stores)
            }
            try expectSameAnswers(packed, raw, codes: codes, using: &random, "late and replaced")
            _ = try packed.compact(now: Timestamp(milliseconds: Self.now))
            try expectSameAnswers(packed, raw, codes: codes, using: &random, "repacked")

            // Retention cutting through a packed hour.
            for store in stores {
                _ = try store.updateSensor(.code("a"), name: nil, units: nil, valueType: nil, retentionDays: 3)
            }
            let sweepAt = Timestamp(milliseconds: Self.now + Self.hour / 2 + 1_234)
            let packedSweep = try packed.sweepRetention(now: sweepAt, batchSize: 100)
            let rawSweep = try raw.sweepRetention(now: sweepAt, batchSize: 100)
            #expect(packedSweep.deleted == rawSweep.deleted)
            try expectSameAnswers(packed, raw, codes: codes, using: &random, "after retention")
            #expect(try packed.integrityCheck() == "ok")
            try packed.close()
            try raw.close()
        } }
    }

    /// A database of version 1 (no auto-vacuum, no blocks) migrates, packs,
    /// answers as before, and is converted to give pages back.
    @Test func aMigratedDatabaseIsCompactedAndShrinks() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/old.sqlite"
            try SchemaMigrationTests.makeVersion1(at: path)
            let store = try SenseiStore(path: path)
            let start = SchemaMigrationTests.start
            let end = start + 3_000 * 61_001
            func answers() throws -> [String] {
                try [1, 2].flatMap { id -> [String] in
                    let all = try store.readings(of: .id(Int64(id)), ReadingQuery(limit: 10_000, ascending: true)).1
                    let page = try store.readings(of: .id(Int64(id)), ReadingQuery(limit: 77, offset: 1_000)).1
                    let buckets = try store.buckets(of: .id(Int64(id)), after: Timestamp(milliseconds: start),
                                                    before: Timestamp(milliseconds: end), count: 37).1
                    return ["\(all)", "\(page)", "\(buckets.map { [$0.timestamp.milliseconds, $0.count] })",
                            "\(buckets.map { [$0.min, $0.max] })"]
                }
            }
            let before = try answers()
            let sensorsBefore = try store.sensors()
            let pass = try store.compact(now: Timestamp(milliseconds: end + 2 * Self.day))
            #expect(pass.packedReadings == 6_000)
            #expect(pass.freedPages > 0)
            #expect(try answers() == before)
            #expect(try store.sensors() == sensorsBefore)
            #expect(try store.pool.read { db in try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") } == 2)
            #expect(try store.integrityCheck() == "ok")
            try store.close()
        }
    }

    @Test func aPackedDayTakesAFewBytesAReadingAndTheFileShrinks() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/s.sqlite"
            let store = try SenseiStore(path: path)
            // Three days of 30-second readings in hundredths, as a thermometer sends them.
            let start = Self.now - 3 * Self.day
            var random = SplitMix64(seed: 1)
            var centi = 2_000
            let readings = (0..<(3 * 2_880)).map { index in
                centi += Int.random(in: -3...3, using: &random)
                return ReadingInput(timestamp: Timestamp(milliseconds: start + Int64(index) * 30_000),
                                    value: Double(centi) / 100)
            }
            for chunk in stride(from: 0, to: readings.count, by: 1_000) {
                try store.insertReadings(Array(readings[chunk..<min(chunk + 1_000, readings.count)]),
                                         into: .code("t"), createIfMissing: true)
            }
            let pagesBefore = try store.pool.read { db in try Int.fetchOne(db, sql: "PRAGMA page_count")! }
            let pass = try store.compact(now: Timestamp(milliseconds: Self.now))
            #expect(pass.packedHours == 48)
            let blockBytes = try store.pool.read { db in
                try Int.fetchOne(db, sql: "SELECT sum(length(data)) FROM reading_blocks")!
            }
            #expect(blockBytes < pass.packedReadings * 2)
            let (pagesAfter, free, mode) = try store.pool.read { db in
                (try Int.fetchOne(db, sql: "PRAGMA page_count")!, try Int.fetchOne(db, sql: "PRAGMA freelist_count")!,
                 try Int.fetchOne(db, sql: "PRAGMA auto_vacuum")!)
            }
            #expect(mode == 2)
            #expect(free == 0)
            #expect(pagesAfter < pagesBefore / 2)
            #expect(try store.readings(of: .code("t"), ReadingQuery(limit: 10_000, ascending: true)).1
                    == readings.map { Reading(timestamp: $0.timestamp!, value: $0.value) })
            try store.close()
        }
    }

    /// An hour of more readings than packing takes stays as rows; the hours
    /// after it are packed all the same, and every reading reads back.
    @Test func anHourOfTooManyReadingsStaysAsRows() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/s.sqlite")
            let start = Self.now - 3 * Self.day
            var readings = (0..<200).map { ReadingInput(timestamp: Timestamp(milliseconds: start + Int64($0) * 18_000),
                                                        value: Double($0)) }
            for hour in 1...3 {
                readings += (0..<10).map { ReadingInput(timestamp: Timestamp(milliseconds: start + Int64(hour) * Self.hour
                                                            + Int64($0) * 60_000), value: Double(hour)) }
            }
            try store.insertReadings(readings, into: .code("dense"), createIfMissing: true)
            let now = Timestamp(milliseconds: Self.now)
            let pass = try store.compact(now: now, batchReadings: 15, maxHourReadings: 100)
            #expect(pass.packedHours == 3 && pass.packedReadings == 30)
            #expect(try store.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM readings") } == 200)
            #expect(try store.readings(of: .code("dense"), ReadingQuery(limit: 1_000, ascending: true)).1
                    == readings.map { Reading(timestamp: $0.timestamp!, value: $0.value) })
            // The next pass finds nothing more to pack, and ends.
            let again = try store.compact(now: now, batchReadings: 15, maxHourReadings: 100)
            #expect(again.packedHours == 0)
            try store.close()
        }
    }
}
