import Foundation
import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

/// mean, sum, count, min and max over whole minutes come from the rollups
/// (hour rows, minute rows, readings at the edges, packed hours and the
/// frontier); everything else from the readings. The two paths must agree:
/// a WHERE on a field (which holds for every reading) forces the readings path.
@Suite("InfluxQL rollups")
struct InfluxQLRollupTests {
    static let start: Int64 = 1_704_067_200_000  // 2024-01-01T00:00:00Z, ms

    @Test func rollupAnswersEqualReadingAnswers() async throws {
        try await withTestServer { server in
            // Three days at 30 s with a gap, then a few readings on the last
            // day past the rollup frontier; the first two days packed.
            var readings: [ReadingInput] = []
            for i in 0..<(3 * 2880) where !(1000..<1300).contains(i) {
                let ms: Int64 = Self.start + Int64(i) * 30_000 + Int64(i % 7) * 1000
                let value: Double = 20 + 10 * sin(Double(i) / 500) + Double(i % 11) / 100
                readings.append(ReadingInput(timestamp: Timestamp(milliseconds: ms), value: value))
            }
            try await server.insertReadings(readings, into: .code("week"), createIfMissing: true)
            let pass = try await server.compact(now: Timestamp(milliseconds: Self.start + 3 * 86_400_000))
            #expect(pass.packedHours > 0)
            readings = (0..<5).map { ReadingInput(timestamp: Timestamp(milliseconds: Self.start + 3 * 86_400_000 - 100_000 + Int64($0) * 7_000), value: Double($0)) }
            try await server.insertReadings(readings, into: .code("week"), createIfMissing: false)

            let lo = Self.start + 12_345, hi = Self.start + 3 * 86_400_000 - 1
            let ranges = ["time >= \(lo)ms AND time <= \(hi)ms", "time >= \(Self.start)ms AND time < \(hi + 1)ms",
                          "time > \(Self.start + 5 * 3_600_000 + 1)ms AND time < \(Self.start + 30 * 3_600_000 - 17)ms"]
            let groupings = ["", " GROUP BY time(1h)", " GROUP BY time(1m)", " GROUP BY time(15m, 2m)", " GROUP BY time(1d)",
                             " GROUP BY time(2h) fill(none)", " GROUP BY time(7m)", " GROUP BY time(90s)"]
            for range in ranges {
                for grouping in groupings {
                    let fields = grouping.isEmpty ? "mean(value), sum(value), count(value)" : "mean(value), sum(value), count(value), min(value), max(value)"
                    let fast = "SELECT \(fields) FROM week WHERE \(range)\(grouping)"
                    let slow = "SELECT \(fields) FROM week WHERE value > -1000 AND \(range)\(grouping)"
                    let a = try await InfluxQLRoutesTests.query(server.reader, fast, "&epoch=ms")
                    let b = try await InfluxQLRoutesTests.query(server.reader, slow, "&epoch=ms")
                    var differences: [String] = []
                    InfluxQLDifferentialTests.compare(try a.json, try b.json, path: "", ignoreTime: false, into: &differences)
                    #expect(differences.isEmpty && a.status == 200, "\(fast)\n\(differences.prefix(3))\n\(a.text.prefix(300))")
                }
            }
        }
    }
}
