import SenseiModels
import SenseiTestSupport
import Testing

/// Usage split into intervals, checked against a computation of another shape:
/// a counter's reset-corrected running total, and a gauge's integral summed
/// second by second, each read at the boundaries.
@Suite struct UsageAccumulatorTests {
    private typealias Point = (time: Int64, value: Double)

    @Test func counterWithAReset() {
        // 10 → 12 → 3 (restarted) → 5, an hour apart; one interval a reading.
        var usage = UsageAccumulator(kind: .counter, boundaries: [0, 3_600_000, 7_200_000, 10_800_000, 14_400_000])
        for (index, value) in [10.0, 12, 3, 5].enumerated() { usage.add(time: Int64(index) * 3_600_000, value: value) }
        #expect(usage.values == [2, 3, 2, 0])
        #expect(usage.counts == [1, 1, 1, 1])
    }

    @Test func gaugeTrapezoidsSplitAtBoundaries() {
        // 0 W at 00:00, 100 W at 01:00: 50 Wh, split at 00:30 into 12.5 and 37.5.
        var usage = UsageAccumulator(kind: .gauge, boundaries: [0, 1_800_000, 3_600_000], maxGap: 3_600_000)
        usage.add(time: 0, value: 0)
        usage.add(time: 3_600_000, value: 100)
        #expect(usage.values == [12.5, 37.5])
        #expect(usage.counts == [1, 0])
    }

    @Test func gaugeGapsLongerThanMaxGapCountNothing() {
        var usage = UsageAccumulator(kind: .gauge, boundaries: [0, 7_200_000])
        usage.add(time: 0, value: 100)
        usage.add(time: 900_000, value: 100)  // 15 min: bridged, 25 Wh
        usage.add(time: 1_800_001, value: 100)  // just over 15 min: not
        #expect(usage.values == [25])
        #expect(usage.counts == [3])
    }

    @Test func readingsOutsideBridgeIn() {
        var usage = UsageAccumulator(kind: .counter, boundaries: [1000, 2000])
        usage.add(time: 0, value: 0)
        usage.add(time: 3000, value: 30)
        #expect(usage.values == [10])
        #expect(usage.counts == [0])
    }

    @Test func summariesAddTheirOwnUsage() {
        var usage = UsageAccumulator(kind: .counter, boundaries: [0, 100, 200])
        usage.add(first: (10, 5), last: (90, 9), usage: 4, count: 5)
        usage.add(first: (110, 11), last: (190, 20), usage: 9, count: 3)
        #expect(usage.values == [4 + 1, 1 + 9])
        #expect(usage.counts == [5, 3])
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func randomCountersMatchTheRunningTotal(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        var values = SplitMix64(seed: ~seed)
        let points = randomPoints(&generator) { previous in
            // Mostly rising, sometimes restarting from near zero.
            Int.random(in: 0..<20, using: &values) == 0 ? Double.random(in: 0..<2, using: &values)
                : previous + Double.random(in: 0..<3, using: &values)
        }
        let boundaries = randomBoundaries(&generator)
        var usage = UsageAccumulator(kind: .counter, boundaries: boundaries)
        for point in points { usage.add(time: point.time, value: point.value) }
        // The running total of rises, each reset counting from 0, read at a boundary by interpolation.
        var totals: [Point] = [(points[0].time, 0)]
        for (before, after) in zip(points, points.dropFirst()) {
            let rise = after.value >= before.value ? after.value - before.value : after.value
            totals.append((after.time, totals.last!.value + rise))
        }
        for index in 0..<boundaries.count - 1 {
            let expected = interpolate(totals, at: boundaries[index + 1]) - interpolate(totals, at: boundaries[index])
            #expect(abs(usage.values[index] - expected) < 1e-6 * max(1, abs(expected)), "seed \(seed) #\(index)")
            #expect(usage.counts[index] == points.count { $0.time >= boundaries[index] && $0.time < boundaries[index + 1] })
        }
    }

    @Test(arguments: [11, 12, 13, 14])
    func randomGaugesMatchASumBySeconds(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        var values = SplitMix64(seed: ~seed)
        let points = randomPoints(&generator) { _ in Double.random(in: 0..<3000, using: &values) }
        let boundaries = randomBoundaries(&generator)
        let maxGap: Int64 = 600_000
        var usage = UsageAccumulator(kind: .gauge, boundaries: boundaries, maxGap: maxGap)
        for point in points { usage.add(time: point.time, value: point.value) }
        for index in 0..<boundaries.count - 1 {
            // Midpoint rule, second by second, over the stretches no longer than maxGap.
            var expected = 0.0
            var second = boundaries[index]
            while second < boundaries[index + 1] {
                let middle = second + 500
                if let segment = zip(points, points.dropFirst()).first(where: { $0.time <= middle && middle < $1.time }),
                   segment.1.time - segment.0.time <= maxGap {
                    expected += interpolate([segment.0, segment.1], at: middle) / 3600
                }
                second += 1000
            }
            #expect(abs(usage.values[index] - expected) < 1e-6 * max(1, expected), "seed \(seed) #\(index)")
        }
    }

    /// Readings at irregular times, 5 s to 20 min apart, over about six hours.
    private func randomPoints(_ generator: inout SplitMix64, next: (Double) -> Double) -> [Point] {
        var points: [Point] = [(0, 0)]
        while points.last!.time < 6 * 3_600_000 {
            let step = Int64.random(in: 5...1200, using: &generator) * 1000
            points.append((points.last!.time + step, next(points.last!.value)))
        }
        return points
    }

    /// Boundaries on whole seconds, some inside the readings, the first before them.
    private func randomBoundaries(_ generator: inout SplitMix64) -> [Int64] {
        var boundaries: [Int64] = [-600_000]
        while boundaries.last! < 7 * 3_600_000 {
            boundaries.append(boundaries.last! + Int64.random(in: 60...5400, using: &generator) * 1000)
        }
        return boundaries
    }

    /// The piecewise-linear value at `time`; held flat outside the points.
    private func interpolate(_ points: [Point], at time: Int64) -> Double {
        guard time > points[0].time else { return points[0].value }
        guard let index = points.firstIndex(where: { $0.time >= time }) else { return points.last!.value }
        let (a, b) = (points[index - 1], points[index])
        return a.value + (b.value - a.value) * Double(time - a.time) / Double(b.time - a.time)
    }
}
