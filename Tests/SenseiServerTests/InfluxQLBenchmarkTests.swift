import Foundation
import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

/// Timings, not assertions (bench/README has the figures): Grafana's
/// `mean("value") … GROUP BY time(1h)` over a year of 30-second readings, on
/// Sensei and on InfluxDB 1.6 fed the same points, and `SHOW TAG VALUES WITH
/// KEY = "room"` over 10,000 sensors. Runs only with SENSEI_INFLUXQL_BENCH=1,
/// meant for a release build (`swift test -c release --filter InfluxQLBenchmark`).
@Suite("InfluxQLBenchmark", .serialized, .enabled(if: ProcessInfo.processInfo.environment["SENSEI_INFLUXQL_BENCH"] == "1"))
struct InfluxQLBenchmarkTests {
    static let start: Int64 = 1_672_531_200  // 2023-01-01T00:00:00Z, s
    static let count = 365 * 2880

    static func median(_ runs: Int, _ body: () throws -> Void) rethrows -> Double {
        var times: [Double] = []
        for _ in 0..<runs {
            let started = ContinuousClock.now
            try body()
            let took = ContinuousClock.now - started
            times.append(Double(took.components.attoseconds) / 1e15 + Double(took.components.seconds) * 1000)
        }
        return times.sorted()[runs / 2]
    }

    @Test func grafanaYearQueryAndTagValues() async throws {
        try await withTestServer { server in
            if case .success(let influx) = InfluxDBServer.shared {
                _ = try await influx.request("POST", "/query?q=CREATE%20DATABASE%20bench")
            }
            var lines: [String] = []
            for i in 0..<Self.count {
                lines.append("temperature,room=living value=\(Double(2000 + (i * 7919) % 1000) / 100) \(Self.start + Int64(i) * 30)")
                if lines.count == 10_000 || i == Self.count - 1 {
                    let body = Array((lines.joined(separator: "\n") + "\n").utf8)
                    #expect(try await server.writer.request("POST", "/write?db=bench&precision=s", body: body).status == 204)
                    if case .success(let influx) = InfluxDBServer.shared {
                        #expect(try await influx.request("POST", "/write?db=bench&precision=s", body: body).status == 204)
                    }
                    lines.removeAll(keepingCapacity: true)
                }
            }
            let q = #"SELECT mean("value") FROM "temperature" WHERE ("room" = 'living') AND time >= 1672531200000ms and time <= 1704067199000ms GROUP BY time(1h) fill(null)"#
            let path = "/query?db=bench&epoch=ms&q=" + InfluxQLDifferentialTests.encode(q)
            #expect(try await server.reader.get(path).json["results"]?[0]?["series"]?[0]?["values"]?.arrayValue?.count == 8760)
            let ours = try Self.median(21) { _ = try server.reader.get(path) }
            var theirs = Double.nan
            if case .success(let influx) = InfluxDBServer.shared {
                theirs = try Self.median(21) { _ = try influx.request("GET", path) }
            }
            print("InfluxQL bench: year of 30 s readings, mean GROUP BY time(1h): Sensei \(ours) ms, InfluxDB 1.6 \(theirs) ms (median of 21)")

            var tagLines: [String] = []
            for sensor in 0..<9_999 { tagLines.append("climate,room=r\(sensor % 250),device=d\(sensor) value=1 1700000000") }
            for chunk in stride(from: 0, to: tagLines.count, by: 2_000) {
                let body = Array(tagLines[chunk..<min(chunk + 2_000, tagLines.count)].joined(separator: "\n").utf8)
                #expect(try await server.writer.request("POST", "/write?db=bench&precision=s", body: body).status == 204)
            }
            let tags = "/query?db=bench&q=" + InfluxQLDifferentialTests.encode(#"SHOW TAG VALUES WITH KEY = "room""#)
            let tagTime = try Self.median(11) { _ = try server.reader.get(tags) }
            print("InfluxQL bench: SHOW TAG VALUES WITH KEY = \"room\" over 10,000 sensors: \(tagTime) ms (median of 11)")
        }
    }
}
