import Foundation
import GRDB
import Logging
import SenseiPostgres
import SenseiModels
import SenseiTestSupport
@testable import SenseiServer

/// The same readings in a SQLite store and a PostgreSQL store, for
/// `PostgresReadsDifferentialTests`: written to SQLite through its API and
/// compacted there, then copied as SQLite keeps them (rows as rows, packed
/// hours as the same blocks, with the hour's count, sum, min and max beside
/// them as PostgreSQL's compaction writes them).
final class PostgresReadsFixture: Sendable {
    /// 2025-06-02T00:00:00Z.
    let base: Int64 = 1_748_822_400_000
    /// Three days on: hours that ended a day before are packed.
    var now: Int64 { base + 72 * PostgresReadsDifferentialTests.hour }
    let sqlite: SenseiStore
    let postgres: PostgresStore
    let codes = ["gauge", "counter", "raw", "sparse", "silent", "empty"]
    let ids: [Int64]

    /// Whether the cluster runs; the first call waits for its start off the
    /// cooperative pool (`PostgresServer.started`).
    static var available: Bool {
        get async { (try? await PostgresServer.started()) != nil }
    }

    static let shared: Result<PostgresReadsFixture, any Error> = Result { try PostgresReadsFixture() }

    /// Runs `body` with `shared` off the cooperative pool: the first call
    /// loads both stores, and waits for PostgreSQL's cluster if another test
    /// is starting it, and every body then queries both stores thousands of
    /// times. On pool threads, the suite's tests held both of them (every
    /// other test stood still for 46 s waiting for the load, and for 28 s in
    /// a CI run while two bodies queried).
    static func offThePool(_ body: @Sendable (PostgresReadsFixture) throws -> Void) async throws {
        try await SenseiTestSupport.offThePool { try body(shared.get()) }
    }

    private init() throws {
        let directory = NSTemporaryDirectory() + "sensei-pgreads-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        sqlite = try SenseiStore(path: directory + "/sensei.sqlite")
        postgres = try PostgresStore(url: try PostgresServer.shared.get().database(for: directory),
                                     logger: Logger(label: "pgreads"))
        var ids: [Int64] = []
        for code in codes {
            let sensor = try sqlite.createSensor(code: code, name: nil, units: "W", valueType: .float,
                                                 labels: ["room": ["gauge", "counter"].contains(code) ? "a" : "b"],
                                                 kind: code == "counter" ? .counter : .gauge)
            ids.append(sensor.id)
            let readings = Self.readings(of: code, base: base)
            for chunk in stride(from: 0, to: readings.count, by: 5_000) {
                try sqlite.insertReadings(Array(readings[chunk..<min(chunk + 5_000, readings.count)]),
                                          into: .id(sensor.id), createIfMissing: false)
            }
        }
        self.ids = ids
        _ = try sqlite.compact(now: Timestamp(milliseconds: now))
        // A write into a packed hour unpacks it: rows next to blocks.
        try sqlite.insertReadings([ReadingInput(timestamp: Timestamp(milliseconds: base + 5 * 3_600_000 + 17),
                                                value: 99.5)], into: .code("gauge"), createIfMissing: false)
        try copy()
    }

    /// Seeded readings of each sensor, in time order.
    private static func readings(of code: String, base: Int64) -> [ReadingInput] {
        var random = SplitMix64(seed: UInt64(code.utf8.reduce(0) { $0 &* 31 &+ Int($1) } & 0xFFFF))
        let hour: Int64 = 3_600_000
        var points: [(Int64, Double)] = []
        switch code {
        case "gauge":
            // 30 s for three days, one decimal, less a whole hour and a 20-minute gap.
            for offset in stride(from: Int64(0), to: 72 * hour, by: 30_000)
            where !(10 * hour..<11 * hour).contains(offset) && !(30 * hour + 600_000..<30 * hour + 1_800_000).contains(offset) {
                points.append((base + offset, Double(Int.random(in: -500...3_000, using: &random)) / 10))
            }
        case "counter":
            var total = 50.0
            for offset in stride(from: Int64(0), to: 72 * hour, by: 60_000) {
                total += Double(Int.random(in: 0...40, using: &random)) / 10
                if Int.random(in: 0..<500, using: &random) == 0 { total = 0.3 }
                points.append((base + offset + 7, total))
            }
        case "raw":
            // Values of no short decimal: blocks keep their 8 bytes.
            for offset in stride(from: Int64(0), to: 60 * hour, by: 7_000) {
                points.append((base + offset, Double.random(in: -1...1, using: &random) * 1_000))
            }
        case "sparse":
            // Few, some on hour boundaries, some before 1970.
            points = [(-7_200_000, 1), (-3_600_001, 2), (-1, 3), (0, 4)]
            for _ in 0..<60 {
                let ts = base + Int64.random(in: 0..<72, using: &random) * hour
                    + (Bool.random(using: &random) ? 0 : Int64.random(in: -2..<hour, using: &random))
                points.append((ts, Double(Int.random(in: 0...100, using: &random))))
            }
        case "silent":
            for offset in stride(from: Int64(0), to: 10 * hour, by: 45_000) {
                points.append((base + offset, Double(offset % 7)))
            }
        default:
            break
        }
        var seen = Set<Int64>()
        return points.filter { seen.insert($0.0).inserted }.sorted { $0.0 < $1.0 }
            .map { ReadingInput(timestamp: Timestamp(milliseconds: $0.0), value: $0.1) }
    }

    /// Sensors, rows and blocks as SQLite holds them; the "raw" sensor's
    /// blocks without their usage summary (a reader decodes them).
    private func copy() throws {
        for sensor in try sqlite.sensors() {
            let copied = try postgres.createSensor(code: sensor.code, name: sensor.name, units: sensor.units,
                                                   valueType: sensor.valueType, labels: sensor.labels,
                                                   kind: sensor.kind)
            precondition(copied.id == sensor.id, "the same ids in both stores")
            let (rows, blocks) = try sqlite.pool.read { db in
                (try Row.fetchAll(db, sql: "SELECT ts, value FROM readings WHERE sensor_id = ? ORDER BY ts",
                                  arguments: [sensor.id]),
                 try Row.fetchAll(db, sql: """
                    SELECT start, data, \(PackedHours.summaryColumns) FROM reading_blocks WHERE sensor_id = ?
                    """, arguments: [sensor.id]))
            }
            try postgres.write { session in
                let timestamps: [Int64] = rows.map { $0[0] }, values: [Double] = rows.map { $0[1] }
                try session.execute("""
                    INSERT INTO readings (sensor_id, ts, value)
                    SELECT \(sensor.id), ts, value FROM unnest(\(timestamps)::int8[], \(values)::float8[]) AS r(ts, value)
                    """)
                for block in blocks {
                    let data: Data = block[1]
                    let (_, decoded) = try ReadingBlock.decode([UInt8](data))
                    var total = Aggregate.empty
                    for value in decoded { total.add(value) }
                    let summary = sensor.code == "raw" ? nil : PackedHours.summary(of: block)
                    try session.execute("""
                        INSERT INTO reading_blocks (sensor_id, start, count, data, sum, min, max, first_ts, first_value,
                                                    last_ts, last_value, integral, longest_gap, increase)
                        VALUES (\(sensor.id), \(block[0] as Int64), \(Int32(total.count)), \([UInt8](data)),
                                \(total.sum), \(total.min), \(total.max), \(summary?.firstTime), \(summary?.firstValue),
                                \(summary?.lastTime), \(summary?.lastValue), \(summary?.integral),
                                \(summary?.longestGap), \(summary?.increase))
                        """)
                }
                try session.execute("""
                    UPDATE sensors SET reading_count = \(Int64(sensor.count)),
                        latest_ts = \(sensor.latest?.timestamp.milliseconds), latest_value = \(sensor.latest?.value)
                    WHERE id = \(sensor.id)
                    """)
            }
        }
    }
}

private extension PackedHours {
    /// The summary columns of a block row read by `SELECT start, data, summaryColumns`.
    static func summary(of row: Row) -> UsageSummary {
        UsageSummary(firstTime: row[2], firstValue: row[3], lastTime: row[4], lastValue: row[5], count: 0,
                     integral: row[6], longestGap: row[7], increase: row[8])
    }
}

extension PostgresReadsFixture {
    /// A random range around the data: open ends (unless not `open`), hour
    /// boundaries and a millisecond either side, inverted now and then.
    func bounds(_ random: inout SplitMix64, open: Bool = true) -> (Timestamp?, Timestamp?) {
        let hour = PostgresReadsDifferentialTests.hour
        func instant() -> Int64 {
            let at = base + Int64.random(in: -3...75, using: &random) * hour
            switch Int.random(in: 0..<5, using: &random) {
            case 0: return at
            case 1: return at - 1
            case 2: return at + 1
            case 3: return Int64.random(in: -2 * hour...hour, using: &random)
            default: return at + Int64.random(in: 0..<hour, using: &random)
            }
        }
        var (a, b) = (instant(), instant())
        if Int.random(in: 0..<12, using: &random) != 0, a > b { swap(&a, &b) }
        if Int.random(in: 0..<8, using: &random) == 0 { b = a + Int64.random(in: 0...1, using: &random) }
        let after = open && Int.random(in: 0..<6, using: &random) == 0 ? nil : Timestamp(milliseconds: a)
        let before = open && Int.random(in: 0..<6, using: &random) == 0 ? nil : Timestamp(milliseconds: b)
        return (after, before)
    }
}
