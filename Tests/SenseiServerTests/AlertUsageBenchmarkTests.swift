import Foundation
import Testing
import SenseiModels
@testable import SenseiServer

/// Timings, not assertions: what one look at a `usage_above ... month` rule
/// costs (the evaluator's query, `ReadingStore.usage` over the month so far)
/// for a sensor written every 30 s, as rows and once packed. Runs only with
/// SENSEI_ALERT_USAGE_BENCH=1, meant for a release build
/// (`swift test -c release --filter AlertUsageBenchmark`).
@Suite("AlertUsageBenchmark", .serialized, .enabled(if: ProcessInfo.processInfo.environment["SENSEI_ALERT_USAGE_BENCH"] == "1"))
struct AlertUsageBenchmarkTests {
    @Test func aMonthSoFarOfThirtySecondReadings() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/bench.sqlite")
            let start: Int64 = 1_735_689_600_000  // 2025-01-01T00:00:00Z
            let total = 30 * 2_880 + 2_000  // the month up to the 31st, 16:40
            var index = 0
            while index < total {
                let end = min(index + 1_000, total)
                let readings = (index..<end).map { i in
                    ReadingInput(timestamp: Timestamp(milliseconds: start + Int64(i) * 30_000), value: 800 + Double(i % 60) * 10)
                }
                try store.insertReadings(readings, into: .code("heat_pump"), createIfMissing: true)
                index = end
            }
            let now = Timestamp(milliseconds: start + Int64(total) * 30_000)
            let calendar = UsageCalendar(interval: .month, zone: try TimeZoneRules.named("Europe/Berlin"))
            let period = calendar.period(containing: now.milliseconds)
            let query = UsageQuery(interval: .month, zone: calendar.zone, boundaries: [period.lowerBound, period.upperBound],
                                   maxGap: UsageAccumulator.defaultMaxGap, now: now)
            func measure(_ label: String) throws {
                let clock = ContinuousClock()
                var times: [Duration] = []
                var total = 0.0
                for _ in 0..<15 {
                    times.append(try clock.measure { total = try store.usage(of: .code("heat_pump"), kind: .gauge, query).total })
                }
                times.sort()
                print("usage of the month so far, \(label): \(total) Wh; min \(times[0]), median \(times[times.count / 2])")
            }
            try measure("rows")
            let pass = try store.compact(now: now.adding(milliseconds: 86_400_000))
            try measure("packed (\(pass.packedReadings) readings in \(pass.packedHours) hours)")
            try store.close()
        }
    }
}
