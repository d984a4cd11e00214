import Foundation
import SenseiModels
import Testing
@testable import SenseiTUI
@testable import SenseiClient

/// Long charts and statistics come from rollups: they must equal what the raw
/// readings give, span by span, including the ragged spans at the window's edges.
extension SensorCacheTests {
    /// 35 days of one reading a minute, values from a fixed pseudo-random
    /// sequence (with repeats, so ties happen), and two silent days.
    func knownDataset() -> [(Int64, Double)] {
        var state: UInt64 = 42
        return series(count: 35 * 1_440, every: minute, last: now - 7_000) { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double((state >> 33) % 1_000) / 10
        }.filter { $0.0 < now - 12 * 86_400_000 || $0.0 > now - 10 * 86_400_000 }
    }

    /// The raw figures per span, as `bucketPlan` cuts the window.
    func rawBuckets(_ data: [(Int64, Double)], from start: Int64, through end: Int64, span: Int64) -> [Bucket] {
        var buckets: [Bucket] = []
        var key = Int64.min, sum = 0.0
        for (time, value) in data where time >= start && time <= end {
            let spanKey = time.alignedDown(to: span)
            if spanKey != key {
                if !buckets.isEmpty { buckets[buckets.count - 1].mean = sum / Double(buckets.last!.count) }
                buckets.append(Bucket(timestamp: Timestamp(milliseconds: max(spanKey, start)), mean: 0,
                                      min: value, max: value, count: 0))
                key = spanKey
                sum = 0
            }
            buckets[buckets.count - 1].min = min(buckets.last!.min, value)
            buckets[buckets.count - 1].max = max(buckets.last!.max, value)
            buckets[buckets.count - 1].count += 1
            sum += value
        }
        if !buckets.isEmpty { buckets[buckets.count - 1].mean = sum / Double(buckets.last!.count) }
        return buckets
    }

    @Test(arguments: [TimeRange.week, .month, .all])
    func bucketedDetailEqualsRawFiguresPerSpan(range: TimeRange) async throws {
        try await withCache { cache in
            try cache.mergeSensors([sensor(1, "porch")])
            let data = knownDataset()
            // Uneven pages: rollup granules are rebuilt across page boundaries.
            for page in stride(from: 0, to: data.count, by: 7_777) {
                try cache.insertReadings(readings(Array(data[page..<min(page + 7_777, data.count)])), sensorId: 1)
            }
            let detail = try #require(try cache.detail(sensorId: 1, range: range, now: Timestamp(milliseconds: now),
                                                       rawLimit: 1_000))
            let (start, end) = (detail.start.milliseconds, detail.end.milliseconds)
            let plan = try #require(SensorCache.bucketPlan(from: start, through: end,
                                                          maxBuckets: SensorCache.chartBuckets))
            let expected = rawBuckets(data, from: start, through: end, span: plan.span)
            let series = detail.series
            #expect(series.isAggregated)
            #expect(series.count == expected.count)
            #expect(series.count <= SensorCache.chartBuckets + 2)
            #expect(series.timestamps == expected.map(\.timestamp.milliseconds))
            #expect(series.minimums == expected.map(\.min))
            #expect(series.maximums == expected.map(\.max))
            #expect(series.counts == expected.map(\.count))
            let meanError = zip(series.values, expected.map(\.mean)).map { abs($0 - $1) }.max() ?? 0
            #expect(meanError < 1e-9)

            let window = data.filter { $0.0 >= start && $0.0 <= end }
            let statistics = try #require(detail.statistics)
            let low = window.min { $0.1 < $1.1 }!, high = window.max { $0.1 < $1.1 }!
            #expect(statistics.count == window.count)
            #expect(statistics.min == Reading(timestamp: Timestamp(milliseconds: low.0), value: low.1))
            // `max(by:)` keeps the last of equals; the cache names the first.
            let firstHigh = window.first { $0.1 == high.1 }!
            #expect(statistics.max == Reading(timestamp: Timestamp(milliseconds: firstHigh.0), value: high.1))
            #expect(abs(statistics.mean - window.map(\.1).reduce(0, +) / Double(window.count)) < 1e-9)
            #expect(statistics.oldest.milliseconds == window.first!.0)
            #expect(statistics.newest.milliseconds == window.last!.0)
            #expect(detail.totalReadings == window.count)
            #expect(detail.readings.first?.timestamp.milliseconds == window.last!.0)
        }
    }

    @Test func rollupsMatchTheirReadingsAtEveryLevel() async throws {
        try await withCache { cache in
            try cache.mergeSensors([sensor(1, "porch")])
            let data = knownDataset()
            for page in stride(from: 0, to: data.count, by: 5_000) {
                try cache.insertReadings(readings(Array(data[page..<min(page + 5_000, data.count)])), sensorId: 1)
            }
            try cache.pool.read { db throws in
                for level in RollupLevel.allCases {
                    var stored: [SpanAggregate] = []
                    try SensorCache.forEach(level: level, sensorId: 1, from: .min, upTo: .max, in: db) {
                        stored.append($0)
                    }
                    let expected = rawBuckets(data, from: .min, through: .max, span: level.width)
                    #expect(stored.map(\.start) == expected.map(\.timestamp), "level \(level)")
                    #expect(stored.map(\.count) == expected.map(\.count), "level \(level)")
                    #expect(stored.map(\.max) == expected.map(\.max), "level \(level)")
                }
            }
        }
    }
}
