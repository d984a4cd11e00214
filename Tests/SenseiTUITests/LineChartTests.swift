import Testing
import SenseiModels
@testable import SenseiTUI
@testable import SenseiClient

@Suite struct LineChartTests {
    /// A 7×4 chart: a 2-cell y axis ("10", " 5"), an axis column, a 4×2-cell
    /// plot (8×8 dots), the x axis and a label row.
    func render(_ series: TimeSeries, end: Int64, charset: Charset = .unicode, maxGap: Int64? = nil,
                width: Int = 7, height: Int = 4) -> CellGrid {
        var grid = CellGrid(width: width, height: height)
        LineChart(series: series, start: 0, end: end, range: .hour, charset: charset, maxGap: maxGap)
            .render(into: &grid, area: grid.bounds)
        return grid
    }

    /// One reading a second, one per dot column: 0, 10, 0, 10, 5, 5, 5, 5.
    let zigzag = TimeSeries(timestamps: (0..<8).map { Int64($0) * 1000 }, values: [0, 10, 0, 10, 5, 5, 5, 5])

    @Test func exactBrailleForKnownData() {
        // Ticks 0, 5, 10 over 8 dot rows: 10 → row 0, 5 → row 4, 0 → row 7.
        // Columns 0-3 zigzag between rows 7 and 0, the joins filling in the
        // strokes; column 4 drops to row 4 and 5-7 stay there.
        #expect(render(zigzag, end: 8000).lines == [
            "10┤⢸⢸⡄",
            " 5┤⡇⡇⠉⠉",
            "  └────",
            "",
        ])
    }

    @Test func asciiFallback() {
        #expect(render(zigzag, end: 8000, charset: .ascii).lines == [
            "10+||.",
            " 5+||''",
            "  +----",
            "",
        ])
    }

    /// Every second for 4 s at 0, silent for 8 s, then every second at 10.
    let silent: TimeSeries = {
        let times: [Int64] = [0, 1000, 2000, 3000, 12_000, 13_000, 14_000, 15_000]
        return TimeSeries(timestamps: times, values: times.map { $0 < 10_000 ? 0 : 10 })
    }()

    @Test func aSilenceIsNotBridged() {
        #expect(render(silent, end: 15_999).lines == [
            "10┤   ⠉",
            " 5┤⣀",
            "  └────",
            "",
        ])
    }

    @Test func aShortPauseIsBridged() {
        // The same data with a longest bridged silence of 20 s: one line across.
        #expect(render(silent, end: 15_999, maxGap: 20_000).lines == [
            "10┤  ⡰⠉",
            " 5┤⣀⠎",
            "  └────",
            "",
        ])
    }

    @Test func aSpikeSurvivesDownsampling() {
        // 8000 readings at 0, one at 10 in dot column 5: a thousand readings a
        // dot column, and the spike still reaches the top.
        var values = [Double](repeating: 0, count: 8000)
        values[5500] = 10
        let series = TimeSeries(timestamps: (0..<8000).map(Int64.init), values: values)
        #expect(render(series, end: 7999).lines == [
            "10┤  ⢸",
            " 5┤⣀⣀⣸⣀",
            "  └────",
            "",
        ])
    }

    @Test func labelsTicksAndAxesOnAnHour() {
        // An hour of readings every 5 minutes rising 0 → 110, in 32×8.
        let start = Fixture.now.milliseconds - Fixture.hour
        let series = Fixture.series(from: start, every: 5 * Fixture.minute, count: 12) { Double($0) * 10 }
        var grid = CellGrid(width: 32, height: 8)
        LineChart(series: series, start: start, end: Fixture.now.milliseconds, range: .hour)
            .render(into: &grid, area: grid.bounds)
        // Ticks 0…150 by 50 (at most 4 on 6 rows); x labels every 15 minutes,
        // 11:00 and 12:00 giving way at the edges.
        #expect(grid.lines == [
            "150┤",
            "   │                        ⣀⠤",
            "100┤                 ⢀⣀⡠⠔⠒⠉⠉",
            " 50┤           ⣀⣀⠤⠔⠊⠉⠁",
            "   │     ⢀⡠⠤⠒⠒⠉",
            "  0┤⡠⠔⠒⠊⠉⠁",
            "   └───────┴──────┴──────┴──────",
            "         11:15  11:30  11:45",
        ])
    }

    @Test func cursorColumnIsReversedAndReadsTheNearestReading() {
        let chart = LineChart(series: zigzag, start: 0, end: 8000, range: .hour, cursor: 2)
        var grid = CellGrid(width: 7, height: 4)
        let layout = chart.render(into: &grid, area: grid.bounds)
        #expect(layout.plot == Rect(x: 3, y: 0, width: 4, height: 2))
        #expect(grid[5, 0].style.reverse && grid[5, 1].style.reverse)
        #expect(!grid[4, 0].style.reverse && !grid[5, 2].style.reverse)
        // Cell 2 covers 4000…6000 ms; the reading nearest its middle is at 5000.
        let reading = chart.reading(atColumn: 2, in: layout)
        #expect(reading?.reading == Reading(timestamp: Timestamp(milliseconds: 5000), value: 5))
        #expect(reading?.columnExtent == 5...5 && reading?.columnCount == 2)
        #expect(chart.reading(atColumn: 0, in: layout)?.reading.timestamp.milliseconds == 1000)
        // Out of the plot: clamped to its edges.
        #expect(chart.reading(atColumn: 99, in: layout)?.reading.timestamp.milliseconds == 7000)
    }

    @Test func cursorInAGapReadsTheNearestReadingInTheWindow() {
        let chart = LineChart(series: silent, start: 0, end: 15_999, range: .hour)
        let layout = chart.layout(in: Rect(x: 0, y: 0, width: 7, height: 4))
        let reading = chart.reading(atColumn: 2, in: layout)
        #expect(reading?.reading.timestamp.milliseconds == 12_000)
        #expect(reading?.columnExtent == nil && reading?.columnCount == 0)
    }

    @Test func anEmptyWindowSaysSo() {
        var grid = CellGrid(width: 40, height: 5)
        LineChart(series: zigzag, start: 100_000, end: 200_000, range: .hour).render(into: &grid, area: grid.bounds)
        #expect(grid.lines == [
            "│",
            "│       no readings in this range",
            "│",
            "└───────┴───────────────────────┴───────",
            "      00:02                   00:03",
        ])
    }

    @Test func aFixedDomainForOnOff() {
        let series = TimeSeries(timestamps: [0, 4000, 8000], values: [0, 1, 1])
        let chart = LineChart(series: series, start: 0, end: 8000, range: .hour, valueDomain: 0...1)
        let layout = chart.layout(in: Rect(x: 0, y: 0, width: 12, height: 6))
        #expect(layout.ticks?.labels == ["0", "0.5", "1"])
    }

    @Test func lowChartsDropTheAxesFirst() {
        // Three rows: two plot rows, the x axis gives way to its labels (none fit).
        #expect(render(zigzag, end: 8000, height: 3).lines == ["10┤⢸⢸⡄", " 5┤⡇⡇⠉⠉", ""])
        // One plot row cannot carry a y axis: the plot takes all 7 cells
        // (14 dot columns, 4 dot rows).
        #expect(render(zigzag, end: 8000, height: 2).lines == ["⡜⢆⠎⠢⠤⠤⠄", "00:00"])
        #expect(render(zigzag, end: 8000, height: 1).lines == ["⡜⢆⠎⠢⠤⠤⠄"])
    }

    @Test func anySizeRendersWithoutTrapping() {
        for width in 0...14 {
            for height in 0...7 {
                var grid = CellGrid(width: width, height: height, filledWith: "x")
                LineChart(series: zigzag, start: 0, end: 8000, range: .day, cursor: 50)
                    .render(into: &grid, area: grid.bounds)
                LineChart(series: TimeSeries(), start: 0, end: 0, range: .all)
                    .render(into: &grid, area: Rect(x: 1, y: 1, width: width - 2, height: height - 2))
            }
        }
    }
}

extension LineChartTests {
    @Test func onOffStepsInsteadOfSloping() {
        // Off at 0 s, on at 5 s, off at 7 s, with steps: flat, then straight up.
        let series = TimeSeries(timestamps: [0, 5000, 7000], values: [0, 1, 0])
        var grid = CellGrid(width: 8, height: 4)
        LineChart(series: series, start: 0, end: 8000, range: .hour, valueDomain: 0...1, maxGap: 10_000, stepped: true)
            .render(into: &grid, area: grid.bounds)
        // Ticks 0, 0.5, 1: 1 → dot row 0, 0 → dot row 7. Dot columns are 1 s:
        // row 7 from column 0 to 5, up column 5, row 0 to column 7, down it.
        #expect(grid.lines == [
            "  1┤  ⢸⢹",
            "0.5┤⣀⣀⣸⢸",
            "   └────",
            "",
        ])
    }
}
