import Dispatch
import Foundation
import Testing
import SenseiModels
@testable import SenseiServer

/// Timings, not assertions: a year of 30-second readings inserted in batches of
/// 1,000, then a 200-bucket chart of it. Runs only with SENSEI_ROLLUP_BENCH=1,
/// meant for a release build (`swift test -c release --filter RollupBenchmark`).
@Suite("RollupBenchmark", .serialized, .enabled(if: ProcessInfo.processInfo.environment["SENSEI_ROLLUP_BENCH"] == "1"))
struct RollupBenchmarkTests {
    @Test func yearOfThirtySecondReadings() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/bench.sqlite")
            let start: Int64 = 1_704_067_200_000  // 2024-01-01T00:00:00Z
            let total = 365 * 24 * 120
            let batch = 1_000
            let clock = ContinuousClock()
            let cpuBefore = Self.processCPUSeconds()
            let insertTime = try clock.measure {
                var index = 0
                while index < total {
                    let end = min(index + batch, total)
                    let readings = (index..<end).map { i in
                        ReadingInput(timestamp: Timestamp(milliseconds: start + Int64(i) * 30_000),
                                     value: 20 + 10 * sin(Double(i) / 2880) + Double(i % 7) * 0.1)
                    }
                    try store.insertReadings(readings, into: .code("year"), createIfMissing: true)
                    index = end
                }
            }
            let seconds = Double(insertTime.components.attoseconds) / 1e18 + Double(insertTime.components.seconds)
            let cpu = Self.processCPUSeconds() - cpuBefore
            print("insert: \(total) readings in \(batch)-reading batches: \(insertTime), \(Int(Double(total) / seconds)) readings/s;"
                  + " CPU \(cpu) s, \(Int(Double(total) / cpu)) readings per CPU-second")

            let ranges: [(String, Int64, Int64)] = [
                ("aligned year", start, start + Int64(total) * 30_000 - 1),
                ("unaligned year", start + 12_345, start + Int64(total) * 30_000 - 54_321),
                ("unaligned month", start + 200 * 86_400_000 + 12_345, start + 230 * 86_400_000 - 54_321),
                ("unaligned day", start + 200 * 86_400_000 + 12_345, start + 201 * 86_400_000 - 54_321),
            ]
            for (name, after, before) in ranges {
                var times: [Duration] = []
                var buckets: [Bucket] = []
                for _ in 0..<15 {
                    times.append(try clock.measure {
                        buckets = try store.buckets(of: .code("year"), after: Timestamp(milliseconds: after),
                                                    before: Timestamp(milliseconds: before), count: 200).1
                    })
                }
                times.sort()
                print("buckets=200 \(name): \(buckets.count) buckets, \(buckets.map(\.count).reduce(0, +)) readings;"
                      + " min \(times[0]), median \(times[times.count / 2])")
            }
        }
    }

    /// Single-reading writes from 16 threads, as concurrent POSTs make them.
    @Test func singleReadingWrites() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/bench.sqlite")
            let threads = 16
            let perThread = 2_000
            let cpuBefore = Self.processCPUSeconds()
            let time = ContinuousClock().measure {
                DispatchQueue.concurrentPerform(iterations: threads) { thread in
                    for index in 0..<perThread {
                        // As bench/run.sh posts them: receive-time readings over 64 sensors.
                        let reading = ReadingInput(timestamp: nil, value: Double(index))
                        _ = try! store.insertReadings([reading], into: .code("device_\((thread * perThread + index) % 64)"),
                                                      createIfMissing: true)
                    }
                }
            }
            let cpu = Self.processCPUSeconds() - cpuBefore
            let total = Double(threads * perThread)
            print("single: \(threads * perThread) one-reading writes from \(threads) threads: \(time);"
                  + " CPU \(cpu) s, \(Int(total / cpu)) writes per CPU-second")
        }
    }

    static func processCPUSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
