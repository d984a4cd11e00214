import Testing
import SenseiModels
@testable import SenseiTUI
@testable import SenseiClient

@Suite struct ColumnSeriesTests {
    /// Readings at t = 0, 1000, … with the given values.
    func series(_ values: [Double], every: Int64 = 1000) -> TimeSeries {
        TimeSeries(timestamps: values.indices.map { Int64($0) * every }, values: values)
    }

    @Test func minMaxMeanAndCountPerColumn() {
        // Window 0…8000 in 4 columns of 2000 ms; the reading at 8000 (= end)
        // belongs to the last column.
        let reduced = ColumnSeries(series([1, 3, 5, 2, 7, 7, 4, 9, 6]), start: 0, end: 8000, columns: 4)
        #expect(reduced.columns.map(\.count) == [2, 2, 2, 3])
        #expect(reduced.columns.map(\.min) == [1, 2, 7, 4])
        #expect(reduced.columns.map(\.max) == [3, 5, 7, 9])
        #expect(reduced.columns.map(\.mean) == [2, 3.5, 7, 19.0 / 3])
        #expect(reduced.columns.map(\.first) == [1, 5, 7, 4])
        #expect(reduced.columns.map(\.last) == [3, 2, 7, 6])
        #expect(reduced.columns.map(\.firstIndex) == [0, 2, 4, 6])
        #expect(reduced.valueRange == 1...9)
    }

    @Test func readingsOutsideTheWindowAreLeftOut() {
        let reduced = ColumnSeries(series([100, 1, 2, 3, 100]), start: 1000, end: 3000, columns: 2)
        #expect(reduced.columns.map(\.count) == [1, 2])
        #expect(reduced.valueRange == 1...3)
    }

    @Test func emptyColumnsAreGaps() {
        let values = TimeSeries(timestamps: [0, 7000], values: [1, 2])
        let reduced = ColumnSeries(values, start: 0, end: 8000, columns: 4)
        #expect(reduced.columns.map(\.isEmpty) == [false, true, true, false])
        #expect(ColumnSeries(TimeSeries(), start: 0, end: 10, columns: 3).isEmpty)
        #expect(ColumnSeries(values, start: 0, end: 8000, columns: 0).columns.isEmpty)
    }

    @Test func silenceLongerThanThreeUsualIntervalsIsNotBridged() {
        // Every second for 4 s, silent for 8 s, then every second again.
        var times: [Int64] = Array(stride(from: 0, to: 4000, by: 1000))
        times += Array(stride(from: 12_000, to: 16_000, by: 1000))
        let values = TimeSeries(timestamps: times, values: times.map { _ in 1 })
        let reduced = ColumnSeries(values, start: 0, end: 15_999, columns: 8)
        #expect(reduced.maxGap == 3000)
        #expect(reduced.columns.map(\.isEmpty) == [false, false, true, true, true, true, false, false])
        #expect(reduced.columns.map(\.joinsPrevious) == [false, true, false, false, false, false, false, true])
    }

    @Test func shortSilencesAndAdjacentColumnsAreBridged() {
        // Readings every 5 s drawn in 1 s columns: empty columns between them
        // are resolution, not silence.
        let values = series([1, 2, 3], every: 5000)
        let reduced = ColumnSeries(values, start: 0, end: 10_000, columns: 10)
        #expect(reduced.columns.filter { !$0.isEmpty }.map(\.joinsPrevious) == [false, true, true])
        // A long silence between neighbouring columns is invisible at this
        // resolution, so they are still joined.
        let coarse = ColumnSeries(TimeSeries(timestamps: [0, 100, 200, 900], values: [1, 1, 1, 1]),
                                  start: 0, end: 999, columns: 2)
        #expect(coarse.columns.map(\.joinsPrevious) == [false, true])
    }

    @Test func explicitMaxGapWins() {
        let values = TimeSeries(timestamps: [0, 1000, 2000, 9000], values: [1, 1, 1, 1])
        #expect(ColumnSeries(values, start: 0, end: 9000, columns: 9).columns[8].joinsPrevious == false)
        #expect(ColumnSeries(values, start: 0, end: 9000, columns: 9, maxGap: 7000).columns[8].joinsPrevious)
    }

    @Test func aSpikeSurvivesDownsampling() {
        // 10 000 flat readings with one spike, in 10 columns: the spike's
        // column still reaches it even though its mean barely moves.
        var values = [Double](repeating: 20, count: 10_000)
        values[4321] = 95
        let reduced = ColumnSeries(series(values, every: 10), start: 0, end: 99_990, columns: 10)
        #expect(reduced.columns[4].max == 95)
        #expect(reduced.columns[4].mean < 21)
        #expect(reduced.columns.enumerated().allSatisfy { $0.offset == 4 || $0.element.max == 20 })
    }

    @Test func bucketsCarryTheirExtremesAndWeights() {
        let buckets = [
            Bucket(timestamp: Timestamp(milliseconds: 0), mean: 10, min: 5, max: 12, count: 3),
            Bucket(timestamp: Timestamp(milliseconds: 1000), mean: 20, min: 18, max: 40, count: 1),
            Bucket(timestamp: Timestamp(milliseconds: 2000), mean: 30, min: 29, max: 31, count: 2),
        ]
        let reduced = ColumnSeries(TimeSeries(buckets: buckets), start: 0, end: 3999, columns: 2)
        #expect(reduced.columns[0].count == 4 && reduced.columns[0].points == 2)
        #expect(reduced.columns[0].min == 5 && reduced.columns[0].max == 40)
        #expect(reduced.columns[0].mean == 12.5)  // (10 × 3 + 20) / 4
        #expect(reduced.columns[1].mean == 30)
    }

    @Test func columnOfATimeAndTheSpanOfAColumn() {
        let reduced = ColumnSeries(TimeSeries(), start: 1000, end: 4000, columns: 3)
        #expect(reduced.column(of: 1000) == 0)
        #expect(reduced.column(of: 1999) == 0)
        #expect(reduced.column(of: 2000) == 1)
        #expect(reduced.column(of: 4000) == 2)
        #expect(reduced.column(of: 4001) == nil)
        #expect(reduced.timeSpan(ofColumn: 1) == 2000..<3000)
    }

    @Test func aMillionPointsReduceToTheSameTotals() {
        // One reading every 30 s for a year, reduced to 240 columns.
        let count = 1_000_000
        var values = TimeSeries()
        values.reserveCapacity(count)
        for index in 0..<count { values.append(timestamp: Int64(index) * 30_000, value: Double(index % 1000)) }
        let reduced = ColumnSeries(values, start: 0, end: Int64(count - 1) * 30_000, columns: 240)
        #expect(reduced.columns.reduce(0) { $0 + $1.count } == count)
        #expect(reduced.columns.allSatisfy { !$0.isEmpty && $0.joinsPrevious != ($0.firstIndex == 0) })
        #expect(reduced.valueRange == 0...999)
        #expect(reduced.maxGap == 90_000)
    }

    @Test func hugeWindowsDoNotOverflow() {
        let values = TimeSeries(timestamps: [Timestamp.range.lowerBound, 0, Timestamp.range.upperBound], values: [1, 2, 3])
        let reduced = ColumnSeries(values, start: Timestamp.range.lowerBound, end: Timestamp.range.upperBound, columns: 4000)
        #expect(reduced.columns.first?.count == 1 && reduced.columns.last?.count == 1)
        #expect(reduced.columns.reduce(0) { $0 + $1.count } == 3)
    }
}

@Suite struct TimeSeriesTests {
    @Test func boundsAndNearest() {
        let series = TimeSeries(timestamps: [10, 20, 30], values: [1, 2, 3])
        #expect(series.lowerBound(20) == 1 && series.upperBound(20) == 2)
        #expect(series.lowerBound(0) == 0 && series.upperBound(99) == 3)
        #expect(series.nearestIndex(to: 24) == 1)
        #expect(series.nearestIndex(to: 25) == 1)
        #expect(series.nearestIndex(to: 26) == 2)
        #expect(series.nearestIndex(to: -100) == 0 && series.nearestIndex(to: 100) == 2)
        #expect(TimeSeries().nearestIndex(to: 0) == nil)
        #expect(series.reading(at: 2) == Reading(timestamp: Timestamp(milliseconds: 30), value: 3))
    }

    @Test func medianSpacingIsTheUsualInterval() {
        // Mostly 30 s apart, with one long silence and one quick retry.
        let times: [Int64] = [0, 30_000, 60_000, 61_000, 91_000, 900_000, 930_000]
        #expect(TimeSeries.medianSpacing(of: times) == 30_000)
        #expect(TimeSeries.medianSpacing(of: [5]) == nil)
        #expect(TimeSeries.medianSpacing(of: times, in: 2..<4) == 1000)
    }

    @Test func readingsAndBucketsBuildTheSameShape() {
        let readings = [Reading(timestamp: Timestamp(milliseconds: 1), value: 5),
                        Reading(timestamp: Timestamp(milliseconds: 2), value: 6)]
        let raw = TimeSeries(readings: readings)
        #expect(raw.timestamps == [1, 2] && raw.values == [5, 6] && !raw.isAggregated)
        var buckets = TimeSeries()
        buckets.append(Bucket(timestamp: Timestamp(milliseconds: 1), mean: 5, min: 4, max: 6, count: 2))
        buckets.append(Bucket(timestamp: Timestamp(milliseconds: 2), mean: 7, min: 7, max: 7, count: 1))
        #expect(buckets.isAggregated && buckets.minimums == [4, 7] && buckets.maximums == [6, 7] && buckets.counts == [2, 1])
    }
}
