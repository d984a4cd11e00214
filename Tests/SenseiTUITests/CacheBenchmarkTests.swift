import Foundation
import SenseiModels
import Testing
@testable import SenseiTUI
@testable import SenseiClient

/// Timings of the cache with a year of 30-second readings (≈1M rows), for the
/// targets of docs/design.md (first screen ≤ 100 ms, chart frame of 1M points ≤ 10 ms).
/// A benchmark, not a timed test: it runs only with SENSEI_BENCH set, ideally
/// on a release build, and prints what it measured.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["SENSEI_BENCH"] != nil))
struct CacheBenchmarkTests {
    @Test func yearOfReadings() async throws {
        try await withScratch { scratch in
            let now: Int64 = 1_736_424_123_457
            let cache = try scratch.openCache()
            let sensors = (1...20).map { id in
                Sensor(id: Int64(id), code: "s\(id)", name: "Sensor \(id)", units: "°C", valueType: .float,
                       createdAt: Timestamp(milliseconds: 0), updatedAt: Timestamp(milliseconds: 0),
                       latest: nil, count: 0)
            }
            try cache.mergeSensors(sensors)
            // Sensor 1: a year every 30 s, stored in sync-sized pages.
            let year = 365 * 2_880
            let insertStart = Date()
            for page in stride(from: 0, to: year, by: 10_000) {
                let readings = (page..<min(page + 10_000, year)).map { i in
                    Reading(timestamp: Timestamp(milliseconds: now - Int64(year - i) * 30_000),
                            value: 20 + 5 * sin(Double(i) / 2_880 * 2 * .pi) + Double(i % 7) / 10)
                }
                try cache.insertReadings(readings, sensorId: 1)
            }
            let insertSeconds = Date().timeIntervalSince(insertStart)
            // The others: a day each.
            for id in 2...20 {
                try cache.insertReadings((0..<2_880).map {
                    Reading(timestamp: Timestamp(milliseconds: now - Int64($0) * 30_000), value: Double($0 % 50))
                }.reversed(), sensorId: Int64(id))
            }
            try cache.close()

            var report = ["insert \(year) readings in pages of 10 000 (with rollups): "
                          + String(format: "%.2f s (%.0f readings/s)", insertSeconds, Double(year) / insertSeconds)]
            let openStart = Date()
            let reopened = try scratch.openCache()
            let summaries = try reopened.sensorSummaries(now: Timestamp(milliseconds: now))
            report.append("open + list of 20 sensors (one with 1M readings): \(milliseconds(since: openStart))")
            #expect(summaries.count == 20)
            report.append("list again: " + (try median { _ = try reopened.sensorSummaries(now: Timestamp(milliseconds: now)) }))
            for range in TimeRange.allCases {
                var points = 0
                let time = try median {
                    let detail = try reopened.detail(sensorId: 1, range: range, now: Timestamp(milliseconds: now))
                    points = detail?.series.count ?? 0
                }
                report.append("detail \(range): \(time), \(points) chart points")
            }
            print(report.map { "BENCH " + $0 }.joined(separator: "\n"))
        }
    }

    @Test func syncOfAYearOverLoopback() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                let now = Timestamp.now().milliseconds, year = 365 * 2_880
                for page in stride(from: 0, to: year, by: 50_000) {
                    try await server.post("year", (page..<min(page + 50_000, year)).map { i in
                        (now - Int64(year - i) * 30_000, Double(i % 1_000) / 10)
                    })
                }
                let cache = try scratch.openCache()
                let syncer = Syncer(client: server.client(), cache: cache)
                var start = Date()
                let first = try await syncer.sync()
                var report = ["first sync of \(first.readingsFetched) readings, \(first.requests) requests: "
                              + milliseconds(since: start)]
                start = Date()
                let idle = try await syncer.sync()
                report.append("sync with nothing new (\(idle.requests) request): " + milliseconds(since: start))
                print(report.map { "BENCH " + $0 }.joined(separator: "\n"))
                #expect(first.readingsFetched == year)
            }
        }
    }

    private func milliseconds(since start: Date) -> String {
        String(format: "%.2f ms", Date().timeIntervalSince(start) * 1000)
    }

    /// The median of 7 runs of `body`.
    private func median(_ body: () throws -> Void) rethrows -> String {
        var times: [Double] = []
        for _ in 0..<7 {
            let start = Date()
            try body()
            times.append(Date().timeIntervalSince(start) * 1000)
        }
        return String(format: "%.2f ms", times.sorted()[3])
    }
}
