import Foundation
import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

/// Seeded hostile queries through the real route, over data with extremes
/// (a reading in year 9999, integer sums past Int64, NaN-free floats):
/// every answer is a 200 or a 400 with a JSON body, never a 500 or a crash.
/// `SENSEI_INFLUXQL_FUZZ_CASES` sets the count (default 1,500).
@Suite("InfluxQL fuzzing")
struct InfluxQLFuzzTests {
    static let cases = Int(ProcessInfo.processInfo.environment["SENSEI_INFLUXQL_FUZZ_CASES"] ?? "") ?? 1_500

    @Test func hostileQueriesNeverCrashOrYield500() async throws {
        try await withTestServer { server in
            let now = Int64(Date().timeIntervalSince1970)
            let lines = InfluxQLDifferentialTests.lines(now: now)
                + "big,k=v n=9000000000000000000i 1700000000\nbig,k=v n=9000000000000000000i 1700000060\n"
            #expect(try await server.writer.request("POST", "/write?db=home&precision=s", body: Array(lines.utf8)).status == 204)
            // Past what nanoseconds hold (1677 to 2262): out of InfluxQL's reach, never a trap.
            try await server.insertReadings([ReadingInput(timestamp: Timestamp(rfc3339: "2300-01-01T00:00:00Z")!, value: 1),
                                             ReadingInput(timestamp: Timestamp(rfc3339: "1600-01-01T00:00:00Z")!, value: 2)],
                                            into: .code("far_future"), createIfMissing: true)
            let seeds = InfluxQLDifferentialTests.cases.map(\.query) + InfluxQLParserTests.statements.map(\.0) + [
                "SELECT * FROM far_future", "SELECT mean(value) FROM far_future GROUP BY time(1d)",
                "SELECT sum(n), mean(n), spread(n) FROM big", "SELECT cumulative_sum(n) FROM big",
                "SELECT mean(value) FROM temperature WHERE time > 0 GROUP BY time(1ns)",
                "SELECT mean(value) FROM temperature WHERE time > now() - 100000w GROUP BY time(1h, 9999999w)",
                "SELECT derivative(mean(value), 1ns) FROM temperature WHERE time > now() - 1h GROUP BY time(1ns)",
                "SELECT moving_average(mean(value), 9223372036854775807) FROM temperature WHERE time > now() - 1h GROUP BY time(1m)",
                "SELECT value FROM temperature LIMIT 9223372036854775807 OFFSET 9223372036854775807",
                "SELECT percentile(value, 1e300) FROM temperature", "SELECT value % -1 FROM temperature",
                "SELECT mean(value) FROM temperature WHERE time > -9223372036854775807 - 1 GROUP BY time(1h) fill(1e300)",
            ]
            let pieces = ["(", ")", ",", ";", "'", "\"", "/", "=~ /x/", "-", "*", "1ns", "now()", "fill(linear)",
                          "tz('Europe/Berlin')", "9223372036854775807", "GROUP BY time(1s)", "ORDER BY time DESC", "\\", "µ"]
            // Off the pool, and timed on the thread that asks: the bound is
            // on the server's answer, not on how long a resumed test waits
            // for one of the pool's two threads.
            let statuses = try await offThePool { try Self.ask(server.reader, seeds: seeds, pieces: pieces) }
            #expect(statuses[200, default: 0] > Self.cases / 4, "\(statuses)")
        }
    }

    /// Asks `cases` seeded mutations of `seeds`, checks each answer, and
    /// counts the statuses.
    static func ask(_ client: TestHTTPClient, seeds: [String], pieces: [String]) throws -> [Int: Int] {
        var random = SplitMix64(seed: 24_2411)
        var statuses: [Int: Int] = [:]
        for index in 0..<Self.cases {
            var text = seeds[Int(random.next() % UInt64(seeds.count))]
            for _ in 0..<Int(random.next() % 3) {
                var bytes = Array(text.utf8)
                let at = Int(random.next() % UInt64(bytes.count + 1))
                if random.next() % 2 == 0 {
                    bytes.insert(contentsOf: Array(pieces[Int(random.next() % UInt64(pieces.count))].utf8), at: at)
                } else if at < bytes.count {
                    bytes.removeSubrange(at..<min(bytes.count, at + 1 + Int(random.next() % 6)))
                }
                text = String(decoding: bytes, as: UTF8.self)
            }
            var path = "/query?db=home&q=" + InfluxQLDifferentialTests.encode(text)
            if random.next() % 3 == 0 { path += "&epoch=" + ["ns", "u", "ms", "s", "m", "h", "x"][Int(random.next() % 7)] }
            if random.next() % 5 == 0 { path += "&chunked=true" }
            if random.next() % 5 == 0 { path += "&pretty=true" }
            let headers = random.next() % 6 == 0 ? ["Accept": "application/csv"] : [:]
            let started = ContinuousClock.now
            let response = try client.request("GET", path, headers: headers)
            let took = ContinuousClock.now - started
            // A hang's bound: every case answers in milliseconds alone.
            #expect(took < .seconds(10), "case \(index): \(text) took \(took)")
            statuses[response.status, default: 0] += 1
            #expect(response.status == 200 || response.status == 400, "case \(index): \(text) → \(response.status) \(response.text.prefix(300))")
            if headers.isEmpty, path.contains("chunked") == false {
                #expect((try? JSONParser.parse(response.body)) != nil, "case \(index): \(text) → \(response.text.prefix(300))")
            }
        }
        return statuses
    }
}
