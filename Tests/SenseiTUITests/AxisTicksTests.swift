import Testing
@testable import SenseiTUI

@Suite struct AxisTicksTests {
    @Test func roundStepsOfOneTwoOrFive() {
        let ticks = AxisTicks(min: 0, max: 10, maxCount: 6)
        #expect(ticks.values == [0, 2, 4, 6, 8, 10])
        #expect(ticks.labels == ["0", "2", "4", "6", "8", "10"])
        #expect(ticks.step == 2)
        #expect(AxisTicks(min: 0, max: 10, maxCount: 5).labels == ["0", "5", "10"])
    }

    @Test func boundsWidenToWholeSteps() {
        let ticks = AxisTicks(min: 10, max: 25, maxCount: 6)
        #expect(ticks.labels == ["10", "15", "20", "25"])
        let loose = AxisTicks(min: 1.3, max: 9.1, maxCount: 6)
        #expect(loose.labels == ["0", "2", "4", "6", "8", "10"])
        #expect(loose.lower == 0 && loose.upper == 10)
    }

    @Test func negatives() {
        #expect(AxisTicks(min: -3.2, max: 7.9, maxCount: 6).labels == ["-5", "0", "5", "10"])
        #expect(AxisTicks(min: -20_000, max: -5000, maxCount: 4).labels == ["-20k", "-15k", "-10k", "-5k"])
    }

    @Test func decimalsOnlyWhereNeeded() {
        #expect(AxisTicks(min: 0.1, max: 0.35, maxCount: 6).labels == ["0.1", "0.15", "0.2", "0.25", "0.3", "0.35"])
        // 3 × 0.1 in binary is 0.30000000000000004; the label is still 0.3.
        #expect(AxisTicks(min: 0, max: 0.3, maxCount: 4).labels == ["0", "0.1", "0.2", "0.3"])
    }

    @Test func flatSeriesGetABandAroundTheValue() {
        let ticks = AxisTicks(min: 23.5, max: 23.5, maxCount: 5)
        #expect(ticks.labels == ["22.5", "23", "23.5", "24", "24.5"])
        #expect(AxisTicks(min: 0, max: 0, maxCount: 3).labels == ["-1", "0", "1"])
        #expect(AxisTicks(min: -400, max: -400, maxCount: 3).labels == ["-410", "-400", "-390"])
    }

    @Test func tinyValuesUseAnExponent() {
        #expect(AxisTicks(min: 0.000_12, max: 0.000_18, maxCount: 4).labels == ["1.2e-4", "1.4e-4", "1.6e-4", "1.8e-4"])
    }

    @Test func hugeValuesUseSuffixesThenAnExponent() {
        #expect(AxisTicks(min: 0, max: 2_500_000, maxCount: 6).labels == ["0", "0.5M", "1M", "1.5M", "2M", "2.5M"])
        #expect(AxisTicks(min: 1000, max: 1013, maxCount: 5).labels == ["1000", "1005", "1010", "1015"])
        #expect(AxisTicks(min: 0, max: 3e15, maxCount: 4).labels == ["0", "1e15", "2e15", "3e15"])
        #expect(AxisTicks(min: 2e9, max: 8e9, maxCount: 4).labels == ["2G", "4G", "6G", "8G"])
    }

    @Test func aRangeAroundZeroNeedsThreeTicks() {
        // Regression: with a limit of two ticks this searched ever larger steps
        // until the step overflowed to infinity.
        #expect(AxisTicks(min: -7.3, max: 12.9, maxCount: 2).labels == ["-20", "0", "20"])
    }

    @Test func notFiniteFallsBackToZeroOne() {
        #expect(AxisTicks(min: .nan, max: 3, maxCount: 3).labels == ["0", "0.5", "1"])
    }

    @Test(arguments: [(0.0, 1.0), (-7.3, 12.9), (1e-9, 3e-9), (99.5, 100.5), (-1e12, 1e12), (0.49, 0.51), (5, 5)])
    func coversTheRangeWithinTheCount(range: (Double, Double)) {
        for maxCount in 1...12 {
            let ticks = AxisTicks(min: range.0, max: range.1, maxCount: maxCount)
            #expect(ticks.values.count <= max(3, maxCount))
            #expect(ticks.values.count >= 2)
            #expect(ticks.step.isFinite && ticks.step > 0)
            #expect(ticks.lower <= range.0 && ticks.upper >= range.1)
            #expect(Set(ticks.labels).count == ticks.labels.count, "labels must differ: \(ticks.labels)")
        }
    }
}
