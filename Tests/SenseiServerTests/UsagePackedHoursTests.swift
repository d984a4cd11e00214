import GRDB
import SenseiModels
import SenseiTestSupport
import Testing
@testable import SenseiServer

/// Usage is the same whether a sensor's hours are rows, packed hours read by
/// their summaries, or packed hours decoded (summaries missing), and matches
/// a sum second by second made here: gauges with gaps shorter and longer than
/// maxGap inside and across hours, counters restarting inside an hour and at
/// its edge, a half-hour zone whose hours straddle every interval, and a write
/// into a packed hour.
@Suite("Usage from packed hours")
struct UsagePackedHoursTests {
    typealias Point = (time: Int64, value: Double)
    static let minute: Int64 = 60_000
    static let hour: Int64 = 3_600_000
    /// 2025-06-02T00:00:00Z.
    static let base: Int64 = 1_748_822_400_000

    /// Two days every 30 s, values with one decimal, less the readings in
    /// these gaps (maxGap is 15 min): 10 and 20 minutes inside hours 3 and 5,
    /// 10 and 20 minutes across the starts of hours 8 and 10, all of hour 13.
    static let gauge: [Point] = {
        var random = SplitMix64(seed: 27)
        let gaps: [(Int64, Int64)] = [(3 * hour + 10 * minute, 3 * hour + 20 * minute),
                                      (5 * hour + 10 * minute, 5 * hour + 30 * minute),
                                      (7 * hour + 55 * minute, 8 * hour + 5 * minute),
                                      (9 * hour + 50 * minute, 10 * hour + 10 * minute),
                                      (12 * hour + 59 * minute, 14 * hour)]
        return stride(from: Int64(0), to: 48 * hour, by: 30_000).compactMap { offset in
            let value = Double(Int.random(in: 0...30_000, using: &random)) / 10
            return gaps.contains { offset > $0.0 && offset < $0.1 } ? nil : (base + offset, value)
        }
    }()

    /// A day every 60 s, rising, restarting: inside hour 2, at the first
    /// reading of hour 4 (04:00:00), and between 05:59:30 and 06:00:30; no
    /// reading from 08:30 to 10:30 (a counter is bridged).
    static let counter: [Point] = {
        var random = SplitMix64(seed: 72)
        var points: [Point] = []
        var total = 100.0
        let (quietFrom, quietTo): (Int64, Int64) = (8 * hour + 30 * minute, 10 * hour + 30 * minute)
        for step in 0..<(24 * 60) {
            let offset = Int64(step) * minute
            if quietFrom < offset && offset < quietTo { continue }
            total += Double(Int.random(in: 0...50, using: &random)) / 10
            if offset == 2 * hour + 17 * minute || offset == 4 * hour { total = 0.4 }
            points.append((base + offset, total))
            if offset == 5 * hour + 59 * minute {
                points.append((base + offset + 30_000, total + 1))
                total = 0.2
                points.append((base + offset + 90_000, total))
            }
        }
        return points.filter { $0.time != base + 6 * hour }  // 05:59:30 → 06:00:30 straddles 06:00
    }()

    @Test(arguments: [("UTC", UsageInterval.day, 900), ("UTC", .hour, 900), ("UTC", .hour, 300),
                      ("Europe/Berlin", .day, 900), ("Asia/Kolkata", .hour, 900), ("Asia/Kolkata", .day, 900)])
    func gaugeIsTheSameEveryWay(zone: String, interval: UsageInterval, maxGapSeconds: Int64) async throws {
        try await withStore(Self.gauge) { store in
            let query = try Self.query(interval, zone, from: Self.base + 2 * Self.hour, to: Self.base + 46 * Self.hour,
                                       maxGap: maxGapSeconds * 1000)
            let expected = Self.bySeconds(Self.gauge, query.boundaries) { a, b, middle in
                guard b.time - a.time <= query.maxGap else { return 0 }
                return (a.value + (b.value - a.value) * Double(middle - a.time) / Double(b.time - a.time)) / 3600
            }
            try Self.expectEveryWay(store, .gauge, query, expected, Self.gauge, "\(zone) \(interval)")
        }
    }

    @Test(arguments: [("UTC", UsageInterval.hour), ("UTC", .day), ("Asia/Kolkata", .hour), ("Asia/Kolkata", .day)])
    func counterIsTheSameEveryWay(zone: String, interval: UsageInterval) async throws {
        try await withStore(Self.counter) { store in
            let query = try Self.query(interval, zone, from: Self.base + Self.hour, to: Self.base + 23 * Self.hour)
            let expected = Self.bySeconds(Self.counter, query.boundaries) { a, b, _ in
                (b.value >= a.value ? b.value - a.value : b.value) * 1000 / Double(b.time - a.time)
            }
            try Self.expectEveryWay(store, .counter, query, expected, Self.counter, "\(zone) \(interval)")
        }
    }

    /// A summary is what packing the hour computes: checked against sums
    /// written out here for every packed hour.
    @Test func summariesAreTheHoursOwn() async throws {
        try await withStore(Self.counter) { store in
            _ = try store.compact(now: .now())
            let rows = try store.pool.read { db in
                try Row.fetchAll(db, sql: "SELECT start, count, \(PackedHours.summaryColumns) FROM reading_blocks")
            }
            #expect(rows.count == 23)  // hour 9 holds nothing
            for row in rows {
                let start: Int64 = row["start"]
                let points = Self.counter.filter { $0.time >= start && $0.time < start + Self.hour }
                let pairs = zip(points, points.dropFirst())
                #expect(row["count"] == points.count)
                #expect(row["first_ts"] == points.first!.time && row["first_value"] == points.first!.value)
                #expect(row["last_ts"] == points.last!.time && row["last_value"] == points.last!.value)
                #expect(row["longest_gap"] == pairs.map { $1.time - $0.time }.max() ?? 0)
                let increase = pairs.reduce(0.0) { $0 + ($1.1.value >= $1.0.value ? $1.1.value - $1.0.value : $1.1.value) }
                let integral = pairs.reduce(0.0) { $0 + ($1.0.value + $1.1.value) / 2 * Double($1.1.time - $1.0.time) / 3_600_000 }
                #expect(abs((row["increase"] as Double) - increase) <= 1e-9 * max(1, increase))
                #expect(abs((row["integral"] as Double) - integral) <= 1e-9 * max(1, integral))
            }
        }
    }

    /// A write into a packed hour unpacks it; the answer takes the new reading
    /// in, and again once the hour is packed anew.
    @Test func writeIntoAPackedHour() async throws {
        try await withStore(Self.gauge) { store in
            _ = try store.compact(now: .now())
            let late: Point = (Self.base + 3 * Self.hour + 15 * Self.minute, 4_000)  // inside the 10-minute gap
            try store.insertReadings([ReadingInput(timestamp: Timestamp(milliseconds: late.time), value: late.value)],
                                     into: .code("meter"), createIfMissing: false)
            let hourStart = Self.base + 3 * Self.hour
            #expect(try store.pool.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM reading_blocks WHERE start = ?", arguments: [hourStart])
            } == 0)
            let points = (Self.gauge + [late]).sorted { $0.time < $1.time }
            let query = try Self.query(.hour, "UTC", from: Self.base, to: Self.base + 24 * Self.hour)
            let expected = Self.bySeconds(points, query.boundaries) { a, b, middle in
                b.time - a.time <= query.maxGap
                    ? (a.value + (b.value - a.value) * Double(middle - a.time) / Double(b.time - a.time)) / 3600 : 0
            }
            Self.expect(try store.usage(of: .code("meter"), as: .gauge, query), query, expected, points, "unpacked")
            #expect(try store.compact(now: .now()).packedHours == 1)
            Self.expect(try store.usage(of: .code("meter"), as: .gauge, query), query, expected, points, "packed again")
        }
    }

    /// The route, on the real server: by hour in a half-hour zone (every
    /// packed hour straddles one) and by day in Berlin (none does).
    @Test(.sqliteOnly) func routeIsTheSameEveryWay() async throws {
        try await withTestServer { server in
            for chunk in stride(from: 0, to: Self.gauge.count, by: 2_000) {
                let items = Self.gauge[chunk..<min(chunk + 2_000, Self.gauge.count)].map {
                    #"{"timestamp":"\#(Timestamp(milliseconds: $0.time).rfc3339)","value":\#($0.value)}"#
                }
                #expect(try server.writer.post("/sensors/meter/data", json: #"{"data":[\#(items.joined(separator: ","))]}"#).status == 201)
            }
            let (after, before) = (Self.base + 2 * Self.hour, Self.base + 46 * Self.hour)
            var asked: [(UsageQuery, String, [Double])] = []
            for (interval, zone) in [(UsageInterval.hour, "Asia/Kolkata"), (.day, "Europe/Berlin")] {
                let query = try Self.query(interval, zone, from: after, to: before)
                let expected = Self.bySeconds(Self.gauge, query.boundaries) { a, b, middle in
                    b.time - a.time <= query.maxGap
                        ? (a.value + (b.value - a.value) * Double(middle - a.time) / Double(b.time - a.time)) / 3600 : 0
                }
                let path = "/sensors/meter/usage?interval=\(interval.rawValue)&tz=\(zone)"
                    + "&after=\(Timestamp(milliseconds: after).rfc3339)&before=\(Timestamp(milliseconds: before).rfc3339)"
                asked.append((query, path, expected))
            }
            for state in ["rows", "summaries", "decoded"] {
                if state == "summaries" { #expect(try server.store.compact(now: .now()).packedHours > 0) }
                if state == "decoded" { try Self.forgetSummaries(server.store) }
                for (query, path, expected) in asked {
                    let response = try server.reader.get(path)
                    #expect(response.status == 200)
                    Self.expect(try UsageReport(json: response.json), query, expected, Self.gauge, "\(path), \(state)")
                }
            }
        }
    }

    // MARK: - Helpers

    /// Empties every packed hour's summary, as a block nothing summarised.
    static func forgetSummaries(_ store: SenseiStore) throws {
        try store.pool.write { db in
            let columns = PackedHours.summaryColumns.split(separator: ", ").map { "\($0) = NULL" }
            try db.execute(sql: "UPDATE reading_blocks SET \(columns.joined(separator: ", "))")
            #expect(db.changesCount > 0)
        }
    }

    func withStore(_ points: [Point], _ body: (SenseiStore) async throws -> Void) async throws {
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/sensei.sqlite")
            let readings = points.map { ReadingInput(timestamp: Timestamp(milliseconds: $0.time), value: $0.value) }
            try store.insertReadings(readings, into: .code("meter"), createIfMissing: true)
            try await body(store)
            try store.close()
        }
    }

    static func query(_ interval: UsageInterval, _ zone: String, from: Int64, to: Int64,
                      maxGap: Int64 = 900_000) throws -> UsageQuery {
        let rules = try TimeZoneRules.named(zone)
        let starts = interval.starts(from: from, to: to, in: rules)
        return UsageQuery(interval: interval, zone: rules, boundaries: starts + [interval.next(after: starts.last!, in: rules)],
                          maxGap: maxGap, now: .now())
    }

    /// Rows, then packed (summaries), then packed with the summaries emptied
    /// (every block decoded): each answer as expected.
    static func expectEveryWay(_ store: SenseiStore, _ kind: SensorKind, _ query: UsageQuery, _ expected: [Double],
                               _ points: [Point], _ label: String) throws {
        expect(try store.usage(of: .code("meter"), as: kind, query), query, expected, points, "\(label), rows")
        #expect(try store.compact(now: .now()).packedHours > 0)
        expect(try store.usage(of: .code("meter"), as: kind, query), query, expected, points, "\(label), summaries")
        try forgetSummaries(store)
        expect(try store.usage(of: .code("meter"), as: kind, query), query, expected, points, "\(label), decoded")
    }

    static func expect(_ report: UsageReport, _ query: UsageQuery, _ expected: [Double], _ points: [Point],
                       _ label: String) {
        #expect(report.usage.map(\.start.milliseconds) == query.boundaries.dropLast(), "\(label)")
        for (index, bucket) in report.usage.enumerated() where index < expected.count {
            let (start, end) = (query.boundaries[index], query.boundaries[index + 1])
            #expect(abs(bucket.value - expected[index]) <= 1e-9 * max(1, abs(expected[index])),
                    "\(label) #\(index): \(bucket.value) vs \(expected[index])")
            #expect(bucket.count == points.count { $0.time >= start && $0.time < end }, "\(label) #\(index)")
        }
    }

    /// Each interval's usage summed second by second: `perSecond(a, b, middle)`
    /// is the usage of the second whose middle lies between readings a and b.
    static func bySeconds(_ points: [Point], _ boundaries: [Int64],
                          _ perSecond: (Point, Point, Int64) -> Double) -> [Double] {
        var totals: [Double] = []
        var segment = 0
        for (from, to) in zip(boundaries, boundaries.dropFirst()) {
            var total = 0.0
            for second in stride(from: from, to: to, by: 1000) {
                let middle = second + 500
                while segment + 1 < points.count, points[segment + 1].time <= middle { segment += 1 }
                if segment + 1 < points.count, points[segment].time <= middle {
                    total += perSecond(points[segment], points[segment + 1], middle)
                }
            }
            totals.append(total)
        }
        return totals
    }
}
