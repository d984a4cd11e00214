import Testing
import SenseiModels
@testable import SenseiTUI

@Suite struct TimeAxisTests {
    let now = Fixture.now.milliseconds

    /// The labels as they appear on the axis row.
    func axis(_ range: TimeRange, span: Int64? = nil, width: Int = 60, offset: Int = 0) -> String {
        let labels = TimeAxis.labels(start: now - (span ?? range.milliseconds!), end: now, range: range, width: width,
                                     utcOffsetSeconds: offset)
        var grid = CellGrid(width: width, height: 1)
        for label in labels { grid.write(label.text, x: label.x, y: 0) }
        return grid.lines[0]
    }

    @Test func hourShowsMinutes() {
        #expect(axis(.hour) == "11:00   11:10     11:20     11:30     11:40     11:50  12:00")
        let labels = TimeAxis.labels(start: now - Fixture.hour, end: now, range: .hour, width: 60, utcOffsetSeconds: 0)
        #expect(labels.map(\.tick) == [0, 10, 20, 30, 40, 50, 59])
        #expect(labels.first?.time == now - Fixture.hour)
    }

    @Test func dayShowsWholeHoursInTheLocalOffset() {
        // UTC+1: the window is 13:00 to 13:00 local, ticks every 3 local hours.
        #expect(axis(.day, offset: 3600) == "   15:00  18:00   21:00  00:00   03:00  06:00   09:00  12:00")
        #expect(axis(.day, width: 20) == "12:00   00:00  12:00")
    }

    @Test func weekShowsWeekdayAndDay() {
        #expect(axis(.week) == " Fri 03  Sat 04   Sun 05   Mon 06  Tue 07   Wed 08  Thu 09")
    }

    @Test func monthShowsMondays() {
        #expect(axis(.month) == "        Dec 16        Dec 23        Dec 30        Jan 06")
    }

    @Test func yearShowsMonthsAndTheNewYear() {
        #expect(axis(.year) == "       Mar       May       Jul       Sep       Nov      2025")
    }

    @Test func allFollowsTheSpanOfTheHistory() {
        #expect(axis(.all, span: 3 * 365 * Fixture.day) == "      2022-07   2023-01   2023-07   2024-01   2024-07")
        #expect(axis(.all, span: 20 * 365 * Fixture.day) == "2006  2008  2010  2012  2014  2016  2018  2020  2022  2024")
        #expect(axis(.all, span: 100 * Fixture.day) == "    Oct 14  Oct 28   Nov 11  Nov 25   Dec 09  Dec 23  Jan 06")
        #expect(axis(.all, span: 2 * Fixture.hour) == "     10:15   10:30  10:45   11:00  11:15   11:30  11:45")
    }

    @Test(arguments: TimeRange.allCases)
    func labelsNeverTouchAndStayInside(range: TimeRange) {
        for width in [1, 5, 7, 13, 30, 47, 80, 200] {
            for offset in [0, 3600, -4 * 3600 - 1800, 13 * 3600] {
                let span = range.milliseconds ?? 7 * 365 * Fixture.day
                let labels = TimeAxis.labels(start: now - span, end: now, range: range, width: width,
                                             utcOffsetSeconds: offset)
                for label in labels {
                    #expect(label.x >= 0 && label.x + label.text.count <= width)
                    #expect(label.tick >= 0 && label.tick < width)
                }
                for (left, right) in zip(labels, labels.dropFirst()) {
                    #expect(left.x + left.text.count < right.x, "\(range) \(width): \(left.text) touches \(right.text)")
                }
            }
        }
    }

    @Test func emptyOrInvertedWindowsHaveNoLabels() {
        #expect(TimeAxis.labels(start: now, end: now, range: .hour, width: 60, utcOffsetSeconds: 0).isEmpty)
        #expect(TimeAxis.labels(start: now, end: now - 1, range: .hour, width: 60, utcOffsetSeconds: 0).isEmpty)
        #expect(TimeAxis.labels(start: now - 1000, end: now, range: .hour, width: 0, utcOffsetSeconds: 0).isEmpty)
    }
}
