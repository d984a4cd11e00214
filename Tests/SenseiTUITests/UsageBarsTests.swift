import SenseiModels
import Testing
@testable import SenseiTUI

/// Usage bars as text: heights in eighths, the running interval, names in the
/// zone's local time, more intervals than columns.
@Suite struct UsageBarsTests {
    private func report(_ interval: UsageInterval, starts: [String], values: [Double], units: String = "kWh",
                        runningLast: Bool = false) -> UsageReport {
        let usage = zip(starts, values).enumerated().map { index, pair in
            UsageBucket(start: Timestamp(rfc3339: pair.0)!, value: pair.1, count: 1,
                        complete: !(runningLast && index == starts.count - 1))
        }
        return UsageReport(sensor: "meter", interval: interval, timeZone: "Europe/Berlin", units: units, usage: usage)
    }

    @Test func aWeekByDayInBerlin() throws {
        let berlin = try TimeZoneRules.named("Europe/Berlin")
        let starts = ["2025-10-19T22:00:00Z", "2025-10-20T22:00:00Z", "2025-10-21T22:00:00Z", "2025-10-22T22:00:00Z",
                      "2025-10-23T22:00:00Z", "2025-10-24T22:00:00Z", "2025-10-25T22:00:00Z"]
        let bars = UsageBars(report: report(.day, starts: starts, values: [2, 4, 8, 10, 1, 0, 5.5]), zone: berlin)
        var grid = CellGrid(width: 40, height: 5)
        bars.render(into: &grid, area: grid.bounds)
        #expect(grid.text == """
             10 kWh│        ▂▂▂ ███
                   │        ███ ███         ▂▂▂
                   │    ▅▅▅ ███ ███         ███
                  0│▆▆▆ ███ ███ ███ ▃▃▃     ███
                    Mon Tue Wed Thu Fri Sat Sun
            """)
    }

    /// A day by hour on the 25-hour day (02:00 comes twice, so 05 is three bars
    /// after it), names every third bar, the
    /// running hour dim, the cursor's reversed; ASCII draws whole cells of #.
    @Test func theLongDayByHourInASCII() throws {
        let berlin = try TimeZoneRules.named("Europe/Berlin")
        let first = Timestamp(rfc3339: "2025-10-25T22:00:00Z")!.milliseconds
        let starts = (0..<25).map { Timestamp(milliseconds: first + Int64($0) * 3_600_000).rfc3339 }
        let values = (0..<25).map { Double($0 % 5) * 0.1 }
        let bars = UsageBars(report: report(.hour, starts: starts, values: values, runningLast: true), zone: berlin,
                             charset: .ascii, cursor: 4)
        var grid = CellGrid(width: 36, height: 4)
        let layout = bars.render(into: &grid, area: grid.bounds)
        #expect(grid.text == """
             0.5 kWh|
                    |   ##   ##   ##   ##   ##
                   0| #### #### #### #### ####
                     00 02 05 08 11 14 17 20 23
            """)
        #expect(layout.firstShown == 0 && layout.slotWidth == 1)
        #expect(grid[layout.plot.x + 4, 2].style.reverse)
        #expect(grid[layout.plot.x + 24, 2].style.dim)
        #expect(!grid[layout.plot.x + 19, 2].style.dim && !grid[layout.plot.x + 19, 2].style.reverse)
    }

    /// More intervals than columns: the newest are shown.
    @Test func theNewestWhenTooMany() throws {
        let starts = (0..<40).map { Timestamp(milliseconds: Int64($0) * 86_400_000).rfc3339 }
        let bars = UsageBars(report: report(.day, starts: starts, values: (0..<40).map(Double.init)), zone: .utc)
        var grid = CellGrid(width: 20, height: 3)
        let layout = bars.render(into: &grid, area: grid.bounds)
        #expect(layout.firstShown == 40 - layout.plot.width)
        #expect(UsageBars.niceCeiling(39) == 50)
        #expect(UsageBars.niceCeiling(0.3) == 0.5)
        #expect(UsageBars.niceCeiling(100) == 100)
        #expect(UsageBars.niceCeiling(0) == 0)
    }
}
