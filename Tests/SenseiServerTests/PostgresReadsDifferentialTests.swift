import Foundation
import GRDB
import Logging
import SenseiPostgres
import SenseiModels
import SenseiTestSupport
import Testing
@testable import SenseiServer

/// The PostgreSQL store reads what the SQLite store reads: the same readings
/// (rows, and hours packed by SQLite's compaction, one of them unpacked again
/// by a write) are put into both, and every read API is asked the same
/// seeded-random questions of both, with hour boundaries, packed hours next
/// to rows, empty and inverted ranges, a sensor before 1970 and blocks
/// without their usage summary. Sums and means may differ in their last bits
/// (`nearlyEqual`); everything else is equal.
@Suite("PostgreSQL reads, differential", .enabled("needs a PostgreSQL server") { await PostgresReadsFixture.available })
struct PostgresReadsDifferentialTests {
    static let hour: Int64 = 3_600_000

    @Test func readingPages() async throws {
        try await PostgresReadsFixture.offThePool { fixture in
            var random = SplitMix64(seed: 281)
            for code in fixture.codes {
                for round in 0..<60 {
                    let (after, before) = fixture.bounds(&random)
                    let query = ReadingQuery(after: after, before: before, limit: Int.random(in: 1...700, using: &random),
                                             ascending: Bool.random(using: &random),
                                             offset: round % 3 == 0 ? Int.random(in: 0...300, using: &random) : 0)
                    let expected = try fixture.sqlite.readings(of: .code(code), query).1
                    let actual = try fixture.postgres.readings(of: .code(code), query).1
                    #expect(actual == expected, "\(code) \(query): \(actual.count) readings, expected \(expected.count)")
                }
            }
            #expect(throws: StoreError.self) { try fixture.postgres.readings(of: .code("nope"), ReadingQuery()) }
        }
    }

    @Test func buckets() async throws {
        try await PostgresReadsFixture.offThePool { fixture in
            var random = SplitMix64(seed: 282)
            for code in fixture.codes {
                for _ in 0..<60 {
                    let (after, before) = fixture.bounds(&random, open: false)
                    let count = [1, 2, 7, 60, 200, 2_000].randomElement(using: &random)!
                    let expected = try fixture.sqlite.buckets(of: .code(code), after: after!, before: before!, count: count)
                    let actual = try fixture.postgres.buckets(of: .code(code), after: after!, before: before!, count: count)
                    expectSameBuckets(actual.1, expected.1, "\(code) \(after!)…\(before!) in \(count)")
                }
            }
        }
    }

    @Test(arguments: RollupLevel.allCases)
    func aggregates(level: RollupLevel) async throws {
        try await PostgresReadsFixture.offThePool { fixture in
            var random = SplitMix64(seed: 283 + UInt64(level.rawValue))
            for code in fixture.codes {
                for _ in 0..<40 {
                    let (after, before) = fixture.bounds(&random)
                    let limit = [1, 5, 61, 1_000, 10_000].randomElement(using: &random)!
                    let expected = try fixture.sqlite.aggregates(of: .code(code), level: level, after: after,
                                                                 before: before, limit: limit).1
                    let actual = try fixture.postgres.aggregates(of: .code(code), level: level, after: after,
                                                                 before: before, limit: limit).1
                    expectSameAggregates(actual, expected, "\(code) \(level.name) \(String(describing: after))…"
                                         + "\(String(describing: before)) limit \(limit)")
                }
            }
        }
    }

    @Test func everySensorsReadingsAndAggregates() async throws {
        try await PostgresReadsFixture.offThePool { fixture in
            var random = SplitMix64(seed: 284)
            for round in 0..<24 {
                let (after, before) = fixture.bounds(&random)
                let labels: [(key: String, value: String)] = round % 4 == 1 ? [("room", "a")] : []
                var query = BulkQuery(after: after, before: before, labels: labels,
                                      limit: [1, 37, 500, 20_000].randomElement(using: &random)!)
                for pages in 0..<40 {
                    var expected: [String] = [], actual: [String] = []
                    let next = try fixture.sqlite.readingsOfEverySensor(query) { expected.append("\($0.code) \($1) \($2)") }
                    let got = try fixture.postgres.readingsOfEverySensor(query) { actual.append("\($0.code) \($1) \($2)") }
                    #expect(actual == expected && got == next, "readings page \(pages) of \(query)")
                    guard let next, actual == expected else { break }
                    query.cursor = next
                }
                query.cursor = nil
                let level = RollupLevel.allCases.randomElement(using: &random)!
                for pages in 0..<40 {
                    var expected: [(String, SpanAggregate)] = [], actual: [(String, SpanAggregate)] = []
                    let next = try fixture.sqlite.aggregatesOfEverySensor(query, level: level) { expected.append(($0.code, $1)) }
                    let got = try fixture.postgres.aggregatesOfEverySensor(query, level: level) { actual.append(($0.code, $1)) }
                    #expect(got == next && actual.map(\.0) == expected.map(\.0), "aggregates page \(pages) of \(query)")
                    expectSameAggregates(actual.map(\.1), expected.map(\.1), "aggregates page \(pages)")
                    guard let next, got == next else { break }
                    query.cursor = next
                }
            }
        }
    }

    @Test func influxReadingsAndPieces() async throws {
        try await PostgresReadsFixture.offThePool { fixture in
            var random = SplitMix64(seed: 285)
            let ids = fixture.ids
            #expect(try fixture.postgres.influxFirstTime(of: ids) == fixture.sqlite.influxFirstTime(of: ids))
            #expect(try fixture.postgres.influxFirstTime(of: []) == nil)
            for _ in 0..<80 {
                let chosen = ids.filter { _ in Bool.random(using: &random) }
                #expect(try fixture.postgres.influxFirstTime(of: chosen) == fixture.sqlite.influxFirstTime(of: chosen))
                let (after, before) = fixture.bounds(&random, open: false)
                let (lo, hi) = (after!.milliseconds, before!.milliseconds)
                let ascending = Bool.random(using: &random)
                let limit = [1, 10, 1_000, Int.max].randomElement(using: &random)!
                var expected: [String] = [], actual: [String] = []
                try fixture.sqlite.influxReadings(of: chosen, from: lo, through: hi, ascending: ascending, limit: limit) {
                    expected.append("\($0) \($1) \($2)")
                }
                try fixture.postgres.influxReadings(of: chosen, from: lo, through: hi, ascending: ascending, limit: limit) {
                    actual.append("\($0) \($1) \($2)")
                }
                #expect(actual == expected, "influxReadings \(chosen) \(lo)…\(hi)")
                // Pieces may be cut differently: each lies in one minute (hour)
                // of [lo, hi], and they add up to the same per minute (hour).
                let hourly = Bool.random(using: &random)
                let level: RollupLevel = hourly ? .hour : .minute
                var byStore: [[String: Aggregate]] = [[:], [:]]
                for (index, store) in [fixture.sqlite as any RollupStore, fixture.postgres].enumerated() {
                    try store.influxPieces(of: chosen, from: lo, through: hi, hourly: hourly) { sensor, start, count, sum, min, max in
                        #expect(start >= lo && start <= hi, "a piece at \(start) outside \(lo)…\(hi)")
                        byStore[index]["\(sensor) \(level.start(of: start))", default: .empty]
                            .merge(Aggregate(count: count, sum: sum, min: min, max: max))
                    }
                }
                #expect(byStore[0].keys.sorted() == byStore[1].keys.sorted(), "pieces \(chosen) \(lo)…\(hi) \(level.name)")
                for (key, e) in byStore[0] {
                    guard let a = byStore[1][key] else { continue }
                    #expect(a.count == e.count && a.min == e.min && a.max == e.max
                            && nearlyEqual(a.sum, e.sum, scale: Double(e.count) * Swift.max(abs(e.min), abs(e.max))),
                            "piece \(key): \(a) != \(e)")
                }
            }
        }
    }

    @Test func usage() async throws {
        try await PostgresReadsFixture.offThePool { fixture in
            var random = SplitMix64(seed: 286)
            for code in fixture.codes {
                for _ in 0..<30 {
                    let widths: [Int64] = [Self.hour, 3 * Self.hour, 24 * Self.hour, 17 * 60_000]
                    let width = widths.randomElement(using: &random)!
                    let offset: Int64 = Bool.random(using: &random) ? 0 : Int64.random(in: 0..<Self.hour, using: &random)
                    let first: Int64 = fixture.base + Int64.random(in: -6...60, using: &random) * Self.hour + offset
                    let count = Int.random(in: 1...40, using: &random)
                    let boundaries: [Int64] = (0...count).map { first + Int64($0) * width }
                    let query = UsageQuery(interval: .hour, zone: .utc, boundaries: boundaries,
                                           maxGap: [UsageAccumulator.defaultMaxGap, Int64(300_000)].randomElement(using: &random)!,
                                           now: Timestamp(milliseconds: fixture.now))
                    let expected = try fixture.sqlite.usage(of: .code(code), query)
                    let actual = try fixture.postgres.usage(of: .code(code), query)
                    let context = "usage of \(code) from \(first) by \(width) × \(count)"
                    #expect(actual.units == expected.units && actual.usage.count == expected.usage.count, "\(context)")
                    for (a, e) in zip(actual.usage, expected.usage) {
                        let same = a.start == e.start && a.count == e.count && a.complete == e.complete
                        #expect(same && nearlyEqual(a.value, e.value, scale: 1), "\(context): \(a) != \(e)")
                    }
                }
            }
        }
    }

    private func expectSameAggregates(_ actual: [SpanAggregate], _ expected: [SpanAggregate], _ context: String,
                                      sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(actual.count == expected.count, "\(context): \(actual.count) rows, expected \(expected.count)",
                sourceLocation: sourceLocation)
        for (a, e) in zip(actual, expected) {
            let same = a.start == e.start && a.count == e.count && a.min == e.min && a.max == e.max
                && a.minAt == e.minAt && a.maxAt == e.maxAt
                && nearlyEqual(a.sum, e.sum, scale: Double(e.count) * Swift.max(abs(e.min), abs(e.max)))
            #expect(same, "\(context): \(a) != \(e)", sourceLocation: sourceLocation)
            if !same { return }
        }
    }
}
