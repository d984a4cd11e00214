import GRDB
import Testing
import SenseiModels
import SenseiTestSupport
@testable import SenseiServer

/// History written through the series path (`/write`, an import) lands in
/// packed hours at once (`HistoryPacking`), and the store answers exactly as
/// one given the same readings as rows (`insertReadings`): through duplicates
/// within a batch, re-sent batches, values replaced in packed hours (the row
/// path), readings too recent to pack, and a compaction after.
@Suite("History packing", .serialized)
struct HistoryPackingTests {
    static let minute: Int64 = 60_000
    static let hour: Int64 = 3_600_000
    static let day: Int64 = 86_400_000
    /// "Now" for these stores: 2025-01-10T00:00:00Z.
    static let now: Int64 = 1_736_467_200_000

    /// The same readings to `bulk` as series points and to `raw` as a REST write, in one batch each.
    private func write(_ readings: [ReadingInput], code: String, bulk: SenseiStore, raw: SenseiStore,
                       at receivedAt: Int64 = now) throws {
        let series = Series(identity: SeriesIdentity(source: "test", parts: [code]), preferredCode: code,
                            valueType: .float)
        let points = readings.map { SeriesPoint(series: series, value: $0.value, timestamp: $0.timestamp) }
        #expect(try bulk.ingest(points, receivedAt: Timestamp(milliseconds: receivedAt)).accepted == readings.count)
        try raw.insertReadings(readings, into: .code(code), createIfMissing: true,
                               receivedAt: Timestamp(milliseconds: receivedAt))
    }

    /// `count` readings at distinct, shuffled 30-second-aligned instants of
    /// the `span` before `end`, each a decimal of two places; `taken` keeps
    /// instants apart across calls.
    private func readings(count: Int, before end: Int64, span: Int64, taken: inout Set<Int64>,
                          using random: inout SplitMix64) -> [ReadingInput] {
        var readings: [ReadingInput] = []
        while readings.count < count {
            let ts = end - span + Int64.random(in: 0..<(span / 30_000), using: &random) * 30_000
            guard taken.insert(ts).inserted else { continue }
            let value = (Double.random(in: -100...100, using: &random) * 100).rounded() / 100
            readings.append(ReadingInput(timestamp: Timestamp(milliseconds: ts), value: value))
        }
        return readings
    }

    private func expectSameAnswers(_ bulk: SenseiStore, _ raw: SenseiStore, codes: [String],
                                   using random: inout SplitMix64, _ context: String) throws {
        #expect(try bulk.sensors().map(\.count) == raw.sensors().map(\.count), "\(context): counts")
        #expect(try bulk.sensors().map(\.latest) == raw.sensors().map(\.latest), "\(context): latest")
        for code in codes {
            for ascending in [true, false] {
                let query = ReadingQuery(limit: 100_000, ascending: ascending)
                #expect(try bulk.readings(of: .code(code), query).1 == raw.readings(of: .code(code), query).1,
                        "\(context): all of \(code)")
            }
            let rawSensor = try #require(try raw.sensor(.code(code)))
            for _ in 0..<10 {
                let a = Self.now - 12 * Self.day + Int64.random(in: 0..<(12 * Self.day), using: &random)
                let b = a + Int64.random(in: 0..<(4 * Self.day), using: &random)
                let count = Int.random(in: 1...300, using: &random)
                let buckets = try bulk.buckets(of: .code(code), after: Timestamp(milliseconds: a),
                                               before: Timestamp(milliseconds: b), count: count).1
                let expected = try rawBuckets(raw, sensorID: rawSensor.id, after: a, before: b, count: count)
                expectSameBuckets(buckets, expected, "\(context): \(code) buckets \(a)...\(b) / \(count)")
            }
            for level in [RollupLevel.minute, .hour] {
                let got = try bulk.aggregates(of: .code(code), level: level, after: nil, before: nil, limit: 100_000).1
                let want = try raw.aggregates(of: .code(code), level: level, after: nil, before: nil, limit: 100_000).1
                #expect(got.count == want.count, "\(context): \(code) \(level) rows")
                for (g, w) in zip(got, want) where g.start != w.start || g.count != w.count || g.min != w.min
                    || g.max != w.max || g.minAt != w.minAt || g.maxAt != w.maxAt
                    || !nearlyEqual(g.mean, w.mean, scale: 100) {
                    Issue.record("\(context): \(code) \(level) \(g) != \(w)")
                    break
                }
            }
        }
    }

    private func rowsBefore(_ ts: Int64, in store: SenseiStore) throws -> Int {
        try store.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM readings WHERE ts < ?", arguments: [ts])! }
    }

    @Test(arguments: 1...3)
    func historyLandsPackedAndAnswersAsRows(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        try await withTemporaryDirectory { directory in
            let bulk = try SenseiStore(path: directory + "/bulk.sqlite")
            let raw = try SenseiStore(path: directory + "/raw.sqlite")
            let codes = ["a", "b"]
            // The compactor's limit for this "now": hours before it are old enough to pack.
            let limit = PackedHours.start(of: Self.now - SenseiStore.packAge)
            var taken: [String: Set<Int64>] = [:]
            for code in codes {
                for _ in 0..<6 {
                    // Ten days up to now: most old enough to pack, the last day not.
                    var batch = readings(count: Int.random(in: 1...600, using: &random), before: Self.now,
                                         span: 10 * Self.day, taken: &taken[code, default: []], using: &random)
                    // A timestamp twice in one batch: the later value is kept.
                    if let first = batch.first {
                        batch.append(ReadingInput(timestamp: first.timestamp, value: first.value + 1))
                    }
                    try write(batch, code: code, bulk: bulk, raw: raw)
                }
            }
            #expect(try rowsBefore(limit, in: bulk) == 0)
            #expect(try bulk.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM reading_blocks")! } > 0)
            try expectSameAnswers(bulk, raw, codes: codes, using: &random, "written")

            // The same batch again (a retried request, a re-run import) stores nothing.
            let blocks = { try bulk.pool.read { db in try Row.fetchAll(db, sql: "SELECT * FROM reading_blocks") } }
            let before = try blocks()
            let again = try bulk.readings(of: .code("a"), ReadingQuery(limit: 500, ascending: true)).1
            try write(again.map { ReadingInput(timestamp: $0.timestamp, value: $0.value) }, code: "a", bulk: bulk, raw: raw)
            #expect(try blocks() == before)
            try expectSameAnswers(bulk, raw, codes: codes, using: &random, "sent again")

            // A changed value in a packed hour goes the row path (the hour unpacked), and the compactor repacks it.
            let changed = again.prefix(3).map { ReadingInput(timestamp: $0.timestamp, value: $0.value + 0.25) }
            try write(changed, code: "a", bulk: bulk, raw: raw)
            #expect(try rowsBefore(limit, in: bulk) > 0)
            try expectSameAnswers(bulk, raw, codes: codes, using: &random, "replaced")
            _ = try bulk.compact(now: Timestamp(milliseconds: Self.now))
            #expect(try rowsBefore(limit, in: bulk) == 0)
            try expectSameAnswers(bulk, raw, codes: codes, using: &random, "compacted")
            #expect(try bulk.integrityCheck() == "ok")
            try bulk.close()
            try raw.close()
        }
    }

    /// An hour that already holds rows (written before it was old enough,
    /// not packed yet) takes more history as rows, left to the compactor.
    @Test func anHourWithRowsStaysRows() async throws {
        try await withTemporaryDirectory { directory in
            let bulk = try SenseiStore(path: directory + "/bulk.sqlite")
            let raw = try SenseiStore(path: directory + "/raw.sqlite")
            let hour = PackedHours.start(of: Self.now - 3 * Self.day)
            let early = (0..<10).map { ReadingInput(timestamp: Timestamp(milliseconds: hour + $0 * Self.minute), value: 1) }
            // Written while the hour was new: rows.
            try write(early, code: "a", bulk: bulk, raw: raw, at: hour + Self.hour)
            let late = (10..<20).map { ReadingInput(timestamp: Timestamp(milliseconds: hour + $0 * Self.minute), value: 2) }
            try write(late, code: "a", bulk: bulk, raw: raw)
            #expect(try rowsBefore(Self.now, in: bulk) == 20)
            var random = SplitMix64(seed: 9)
            try expectSameAnswers(bulk, raw, codes: ["a"], using: &random, "rows")
            try bulk.close()
            try raw.close()
        }
    }
}
