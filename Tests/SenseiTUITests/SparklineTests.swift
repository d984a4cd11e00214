import Testing
import SenseiModels
@testable import SenseiTUI
@testable import SenseiClient

@Suite struct SparklineTests {
    func sparkline(_ times: [Int64], _ values: [Double], charset: Charset = .unicode, maxGap: Int64? = nil) -> String {
        Sparkline(series: TimeSeries(timestamps: times, values: values), start: 0, end: 7999, charset: charset,
                  maxGap: maxGap).text(width: 8)
    }

    let ramp: [Int64] = (0..<8).map { Int64($0) * 1000 }

    @Test func eightLevels() {
        #expect(sparkline(ramp, [0, 1, 2, 3, 4, 5, 6, 7]) == "▁▂▃▄▅▆▇█")
    }

    @Test func asciiLevels() {
        // Five ASCII levels: round(v / 7 × 4).
        #expect(sparkline(ramp, [0, 1, 2, 3, 4, 5, 6, 7], charset: .ascii) == "_..--==^")
    }

    @Test func silencesAreSpaces() {
        #expect(sparkline([0, 1000, 6000, 7000], [0, 0, 7, 7]) == "▁▁    ██")
    }

    @Test func aSlowDeviceIsInterpolatedNotGapped() {
        // Every 4 s in 1 s columns: the columns between readings are filled;
        // after the last reading there is nothing to show.
        #expect(sparkline([0, 4000], [0, 8]) == "▁▃▅▆█   ")
    }

    @Test func flatAndEmpty() {
        #expect(sparkline(ramp, [Double](repeating: 3, count: 8)) == "▄▄▄▄▄▄▄▄")
        #expect(sparkline([], []) == "        ")
        #expect(Sparkline(series: TimeSeries(), start: 0, end: 10).text(width: 0) == "")
    }

    @Test func dipsAndSpikesBothShow() {
        // 800 readings at 10 with one 0 in column 3 and one 20 in column 6.
        var values = [Double](repeating: 10, count: 800)
        values[350] = 0
        values[650] = 20
        let times = (0..<800).map { Int64($0) * 10 }
        // 10 is halfway: level round(3.5) = 4, ▅.
        #expect(sparkline(times, values) == "▅▅▅▁▅▅█▅")
    }

    @Test func rendersIntoItsArea() {
        var grid = CellGrid(width: 10, height: 1, filledWith: "x")
        Sparkline(series: TimeSeries(timestamps: ramp, values: [0, 1, 2, 3, 4, 5, 6, 7]), start: 0, end: 7999)
            .render(into: &grid, area: Rect(x: 1, y: 0, width: 8, height: 1))
        #expect(grid.lines == ["x▁▂▃▄▅▆▇█x"])
        #expect(grid[1, 0].style.role == .accent)
    }
}

extension SparklineTests {
    @Test func onOffHoldsUntilTheNextReading() {
        let line = Sparkline(series: TimeSeries(timestamps: [0, 4000, 7000], values: [0, 1, 0]), start: 0, end: 7999,
                             stepped: true)
        #expect(line.text(width: 8) == "▁▁▁▁███▁")
    }
}
