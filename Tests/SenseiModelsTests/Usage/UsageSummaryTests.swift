import SenseiModels
import Testing

/// A packed hour's summary, against sums written out here, and when the
/// accumulator may take one whole.
@Suite struct UsageSummaryTests {
    @Test func summaryOfAnHour() throws {
        // 10 W at :00, 20 W at :10, 20 W at :40 (a 30 min gap), 0 W at :50;
        // as a counter 10 → 20 → 20 → 0 (a restart, counted from 0).
        let minute: Int64 = 60_000
        let summary = try #require(UsageSummary(timestamps: [0, 10 * minute, 40 * minute, 50 * minute],
                                                values: [10, 20, 20, 0]))
        #expect(summary.firstTime == 0 && summary.firstValue == 10)
        #expect(summary.lastTime == 50 * minute && summary.lastValue == 0)
        #expect(summary.count == 4)
        // 15 W for 1/6 h, 20 W for 1/2 h, 10 W for 1/6 h.
        #expect(abs(summary.integral - (15.0 / 6 + 20.0 / 2 + 10.0 / 6)) < 1e-12)
        #expect(summary.longestGap == 30 * minute)
        #expect(summary.increase == 10)
        // The gap is bridged only when the query's maxGap reaches it.
        #expect(summary.usage(kind: .gauge, maxGap: 30 * minute) == summary.integral)
        #expect(summary.usage(kind: .gauge, maxGap: 30 * minute - 1) == nil)
        #expect(summary.usage(kind: .counter, maxGap: 1) == 10)
    }

    @Test func oneReadingAndNone() throws {
        let one = try #require(UsageSummary(timestamps: [5], values: [3]))
        #expect(one.integral == 0 && one.increase == 0 && one.longestGap == 0 && one.count == 1)
        #expect(UsageSummary(timestamps: [], values: []) == nil)
    }

    /// Taken whole only inside one interval; otherwise the caller feeds the
    /// readings, and the accumulator is left as it was.
    @Test func accumulatorTakesASummaryOnlyInsideOneInterval() throws {
        let summary = try #require(UsageSummary(timestamps: [1_000, 2_000], values: [4, 6]))
        var inside = UsageAccumulator(kind: .counter, boundaries: [0, 5_000, 10_000])
        let tookInside = inside.add(summary)
        #expect(tookInside)
        #expect(inside.values == [2, 0] && inside.counts == [2, 0])

        var straddling = UsageAccumulator(kind: .counter, boundaries: [0, 1_500, 10_000])
        let tookStraddling = straddling.add(summary)
        #expect(!tookStraddling)
        #expect(straddling.values == [0, 0] && straddling.counts == [0, 0])

        var before = UsageAccumulator(kind: .counter, boundaries: [1_500, 10_000])
        let tookBefore = before.add(summary)
        #expect(!tookBefore)

        var gappy = UsageAccumulator(kind: .gauge, boundaries: [0, 10_000], maxGap: 999)
        let tookGappy = gappy.add(summary)
        #expect(!tookGappy)
        #expect(gappy.values == [0])
    }
}
