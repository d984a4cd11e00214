import GRDB
import Testing
import SenseiModels
import SenseiTestSupport
@testable import SenseiServer

/// Buckets answered from the minute and hour rollups equal buckets computed
/// from the readings alone, however the readings arrived.
@Suite("Rollups", .serialized)
struct RollupTests {
    static let minute: Int64 = 60_000
    static let hour: Int64 = 3_600_000

    @Test(arguments: 1...12)
    func randomDataAndRangesMatchTheReadings(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        // Values in quarters add up exactly in any order: those means must be equal, not just close.
        let exactMeans = seed % 2 == 0
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/s.sqlite")
            let times = try RandomDataset.insert(into: store, code: "r", exactValues: exactMeans, using: &random)
            try expectRollupsMatchReadings(store, "seed \(seed)")
            let sensorID = try #require(try store.sensor(.code("r"))).id
            let (first, last) = (times.min()!, times.max()!)
            for query in 0..<60 {
                var after = Int64.random(in: first - Self.hour...last, using: &random)
                var before = Int64.random(in: after...last + Self.hour, using: &random)
                // Some ranges start and end on whole hours and minutes, the rest anywhere.
                if query % 5 == 0 { after = RollupLevel.hour.start(of: after) }
                if query % 7 == 0 { before = RollupLevel.minute.start(of: before) - 1 }
                if before < after { before = after }
                let count = [1, 2, 3, 7, 24, 200, 2000, Int.random(in: 1...2000, using: &random)]
                    .randomElement(using: &random)!
                let actual = try store.buckets(of: .code("r"), after: Timestamp(milliseconds: after),
                                               before: Timestamp(milliseconds: before), count: count).1
                let expected = try rawBuckets(store, sensorID: sensorID, after: after, before: before, count: count)
                expectSameBuckets(actual, expected, exactMeans: exactMeans,
                                  "seed \(seed), after \(after), before \(before), buckets \(count)")
            }
        }
    }

    @Test func replacedValuesFixMinMaxAndMean() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/s.sqlite")
            let t = { (ms: Int64) in Timestamp(milliseconds: ms) }
            let at = { (ms: Int64, value: Double) in ReadingInput(timestamp: t(ms), value: value) }
            try store.insertReadings([at(10_000, 1), at(20_000, 5), at(30 * Self.minute, 3), at(70 * Self.minute, 4)],
                                     into: .code("x"), createIfMissing: true)
            // One span of two hours reads hours; sixty spans of two minutes read minutes.
            func check(_ count: Int, _ mean: Double, _ min: Double, _ max: Double,
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
                for spans in [1, 60] {
                    let buckets = try store.buckets(of: .code("x"), after: t(0), before: t(2 * Self.hour - 1),
                                                    count: spans).1
                    let merged = buckets.reduce(into: Aggregate.empty) {
                        $0.merge(Aggregate(count: $1.count, sum: $1.mean * Double($1.count), min: $1.min, max: $1.max))
                    }
                    #expect(merged.count == count && merged.min == min && merged.max == max
                            && nearlyEqual(merged.sum / Double(count), mean, scale: 1),
                            "\(spans) spans: \(merged)", sourceLocation: sourceLocation)
                }
                try expectRollupsMatchReadings(store, "after replacing", sourceLocation: sourceLocation)
            }
            try check(4, 13.0 / 4, 1, 5)
            try store.insertReadings([at(20_000, 2)], into: .code("x"), createIfMissing: false)
            try check(4, 10.0 / 4, 1, 4)
            // The same value again changes nothing; a batch that adds and replaces in one minute.
            try store.insertReadings([at(20_000, 2), at(15_000, -8), at(10_000, 0.5), at(15_000, 9)],
                                     into: .code("x"), createIfMissing: false)
            try check(5, 18.5 / 5, 0.5, 9)
        }
    }

    @Test func deletedAndRecreatedSensorStartsFromNothing() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/s.sqlite")
            let old = (0..<500).map { ReadingInput(timestamp: Timestamp(milliseconds: Int64($0) * 30_000), value: 100) }
            try store.insertReadings(old, into: .code("d"), createIfMissing: true)
            let oldID = try #require(try store.sensor(.code("d"))).id
            try store.deleteSensor(.code("d"))
            let left = try store.pool.read { db in
                try Int.fetchOne(db, sql: """
                    SELECT (SELECT count(*) FROM rollups_minute WHERE sensor_id = ?1)
                         + (SELECT count(*) FROM rollups_hour WHERE sensor_id = ?1)
                    """, arguments: [oldID])
            }
            #expect(left == 0)
            let new = (0..<250).map { ReadingInput(timestamp: Timestamp(milliseconds: Int64($0) * 60_000), value: -1) }
            try store.insertReadings(new, into: .code("d"), createIfMissing: true)
            let buckets = try store.buckets(of: .code("d"), after: Timestamp(milliseconds: 0),
                                            before: Timestamp(milliseconds: 5 * Self.hour - 1), count: 1).1
            #expect(buckets == [Bucket(timestamp: Timestamp(milliseconds: 0), mean: -1, min: -1, max: -1, count: 250)])
            try expectRollupsMatchReadings(store, "recreated")
        }
    }

    /// Guards the speed of long ranges: were they read from the readings, a
    /// range whose readings are gone would come back empty. All but the
    /// newest minute and the one before it are rolled up (`RollupFold`).
    @Test func longRangesAreAnsweredFromTheRollups() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/s.sqlite")
            let readings = (0..<240).map { ReadingInput(timestamp: Timestamp(milliseconds: Int64($0) * 30_000), value: 1) }
            try store.insertReadings(readings, into: .code("w"), createIfMissing: true)
            #expect(try Self.frontier(of: "w", in: store) == 118 * Self.minute)
            try store.pool.write { db in try db.execute(sql: "DELETE FROM readings") }
            let long = try store.buckets(of: .code("w"), after: Timestamp(milliseconds: 0),
                                         before: Timestamp(milliseconds: 2 * Self.hour - 1), count: 1).1
            #expect(long.map(\.count) == [236])
            let short = try store.buckets(of: .code("w"), after: Timestamp(milliseconds: 0),
                                          before: Timestamp(milliseconds: 2 * Self.hour - 1), count: 100).1
            #expect(short.isEmpty)
        }
    }
}

extension RollupTests {
    static func frontier(of code: String, in store: SenseiStore) throws -> Int64? {
        try store.pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT rollups_until FROM sensors WHERE code = ?", arguments: [code])
        }
    }

    /// A device's readings one write at a time, as they come: each write's
    /// newest minute and the one before stay out of the rollups, older ones
    /// are folded in by the first write of a new minute, and a chart that
    /// reaches the newest readings counts them all the same.
    @Test func readingsAreFoldedInOnceTheirMinuteIsOver() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/s.sqlite")
            let start: Int64 = 1_736_424_000_000  // 2025-01-09T12:00:00Z, an hour's start
            var random = SplitMix64(seed: 5)
            var ts = start + 7_000
            var frontiers: Set<Int64> = []
            while ts < start + 3 * Self.hour {
                let value = Double(Int.random(in: -400...400, using: &random)) / 4
                try store.insertReadings([ReadingInput(timestamp: Timestamp(milliseconds: ts), value: value)],
                                         into: .code("d"), createIfMissing: true)
                let frontier = try #require(try Self.frontier(of: "d", in: store))
                #expect(frontier == RollupLevel.minute.start(of: ts) - Self.minute, "after \(ts)")
                frontiers.insert(frontier)
                if frontiers.count % 17 == 0 || ts > start + 3 * Self.hour - 20_000 {
                    try expectRollupsMatchReadings(store, "after \(ts)")
                    for count in [1, 3, 200] {
                        let actual = try store.buckets(of: .code("d"), after: Timestamp(milliseconds: start),
                                                       before: Timestamp(milliseconds: ts), count: count).1
                        let expected = try rawBuckets(store, sensorID: 1, after: start, before: ts, count: count)
                        expectSameBuckets(actual, expected, exactMeans: true, "after \(ts), \(count) buckets")
                    }
                }
                ts += Int64.random(in: 1_000...20_000, using: &random)
            }
            #expect(frontiers.count >= 170)
        }
    }

    /// Readings that arrive after the frontier has passed their minute (a
    /// device's buffered batch, a retry with a new value) go into the
    /// rollups at once; ones after it wait for the fold.
    @Test func lateReadingsAndReplacementsBeforeTheFrontierAreRolledUpAtOnce() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/s.sqlite")
            let at = { (ms: Int64, value: Double) in ReadingInput(timestamp: Timestamp(milliseconds: ms), value: value) }
            try store.insertReadings([at(0, 1), at(90 * Self.minute, 2)], into: .code("l"), createIfMissing: true)
            #expect(try Self.frontier(of: "l", in: store) == 89 * Self.minute)
            func check(_ context: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
                try expectRollupsMatchReadings(store, context, sourceLocation: sourceLocation)
                for count in [1, 2, 45] {
                    let actual = try store.buckets(of: .code("l"), after: Timestamp(milliseconds: 0),
                                                   before: Timestamp(milliseconds: 2 * Self.hour - 1), count: count).1
                    let expected = try rawBuckets(store, sensorID: 1, after: 0, before: 2 * Self.hour - 1, count: count)
                    expectSameBuckets(actual, expected, exactMeans: true, "\(context), \(count) buckets",
                                      sourceLocation: sourceLocation)
                }
            }
            try check("two readings")
            // Late: before the frontier, into the rollups now, in one batch
            // with readings after it, which wait.
            try store.insertReadings([at(30 * Self.minute, 9), at(60 * Self.minute + 1, -3), at(89 * Self.minute + 5, 4)],
                                     into: .code("l"), createIfMissing: false)
            #expect(try Self.frontier(of: "l", in: store) == 89 * Self.minute)
            try check("late batch")
            // A new value for a rolled-up reading that was its hour's max, and
            // for one not rolled up yet.
            try store.insertReadings([at(30 * Self.minute, 0.5), at(89 * Self.minute + 5, 8)],
                                     into: .code("l"), createIfMissing: false)
            try check("replacements")
            // The next minute's first reading folds the one before.
            try store.insertReadings([at(91 * Self.minute + 2, 6)], into: .code("l"), createIfMissing: false)
            #expect(try Self.frontier(of: "l", in: store) == 90 * Self.minute)
            try check("folded")
        }
    }
}

/// Random readings of one sensor, stored the ways devices send them.
enum RandomDataset {
    /// Inserts runs of readings at intervals from 1 ms to 5 minutes with gaps
    /// up to days in between, in batches of random size and order, then
    /// retries (some with new values), repeats within a batch and readings
    /// without timestamps that collide. Returns every timestamp written.
    static func insert(into store: any ReadingStore, code: String, exactValues: Bool,
                       using random: inout SplitMix64) throws -> [Int64] {
        func value() -> Double {
            exactValues ? Double(Int.random(in: -4000...4000, using: &random)) / 4
                : Double.random(in: -1000...1000, using: &random)
        }
        // Half the datasets lie before 1970, where minutes start at negative multiples.
        var ts = Bool.random(using: &random) ? Int64.random(in: -100_000_000_000...0, using: &random)
            : Int64.random(in: 0...1_800_000_000_000, using: &random)
        var readings: [ReadingInput] = []
        for _ in 0..<Int.random(in: 3...12, using: &random) {
            let interval = [1, 250, 1_000, 7_000, 30_000, 300_000].randomElement(using: &random)! as Int64
            for _ in 0..<Int.random(in: 1...1_500, using: &random) {
                readings.append(ReadingInput(timestamp: Timestamp(milliseconds: ts), value: value()))
                ts += interval
            }
            ts += Int64.random(in: 0...3 * 86_400_000, using: &random)
        }
        readings.shuffle(using: &random)
        var times = readings.map { $0.timestamp!.milliseconds }
        var batches: [[ReadingInput]] = []
        var rest = readings[...]
        while !rest.isEmpty {
            let size = Int.random(in: 1...600, using: &random)
            batches.append(Array(rest.prefix(size)).sorted { $0.timestamp! < $1.timestamp! })
            rest = rest.dropFirst(size)
        }
        // Retries of earlier readings, half with a new value (which may have
        // been its minute's min or max), and a repeat inside one batch.
        for _ in 0..<Int.random(in: 1...20, using: &random) {
            var retry = Array(readings.shuffled(using: &random).prefix(Int.random(in: 1...100, using: &random)))
            for index in retry.indices where Bool.random(using: &random) {
                retry[index].value = value() * 5
            }
            retry.append(ReadingInput(timestamp: retry[0].timestamp, value: value()))
            batches.append(retry)
        }
        for batch in batches {
            try store.insertCommitted(batch, into: .code(code), createIfMissing: true)
        }
        // Receive-time readings on taken milliseconds move on, one by one.
        let receivedAt = Timestamp(milliseconds: times.randomElement(using: &random)!)
        let unstamped = (0..<5).map { _ in ReadingInput(timestamp: nil, value: value()) }
        try store.insertCommitted(unstamped, into: .code(code), createIfMissing: true, receivedAt: receivedAt)
        times.append(receivedAt.milliseconds + 5)
        return times
    }
}
