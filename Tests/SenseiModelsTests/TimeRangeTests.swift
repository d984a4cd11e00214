import SenseiModels
import Testing

@Suite struct TimeRangeTests {
    @Test func rangesInDashboardOrder() {
        #expect(TimeRange.allCases == [.hour, .day, .week, .month, .year, .all])
        #expect(TimeRange.allCases.map(\.rawValue) == ["hour", "day", "week", "month", "year", "all"])
        #expect(TimeRange(rawValue: "week") == .week)
        #expect(TimeRange(rawValue: "decade") == nil)
    }

    @Test(arguments: [
        (TimeRange.hour, 3_600_000 as Int64?, "1 hour"),
        (.day, 86_400_000, "24 hours"),
        (.week, 604_800_000, "7 days"),
        (.month, 2_592_000_000, "30 days"),
        (.year, 31_536_000_000, "365 days"),
        (.all, nil, "all time"),
    ] as [(TimeRange, Int64?, String)])
    func spansAndTitles(range: TimeRange, milliseconds: Int64?, title: String) {
        #expect(range.milliseconds == milliseconds)
        #expect(range.title == title)
    }
}
