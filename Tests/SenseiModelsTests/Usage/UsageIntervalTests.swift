import SenseiModels
import Testing

/// Calendar intervals in a zone: daylight-saving days of 23 and 25 hours,
/// weeks from Monday, months, and hours of zones with minutes in their offset.
@Suite struct UsageIntervalTests {
    private func ms(_ text: String) -> Int64 { Timestamp(rfc3339: text)!.milliseconds }

    @Test func berlinDaysAcrossBoth2025Changes() throws {
        let berlin = try TimeZoneRules.named("Europe/Berlin")
        let march = UsageInterval.day.starts(from: ms("2025-03-29T12:00:00Z"), to: ms("2025-04-01T00:00:00Z"),
                                             in: berlin)
        #expect(march.map { Timestamp(milliseconds: $0).rfc3339 } == [
            "2025-03-28T23:00:00Z", "2025-03-29T23:00:00Z", "2025-03-30T22:00:00Z", "2025-03-31T22:00:00Z",
        ])
        // 30 March has 23 hours; 26 October 25.
        #expect(march[2] - march[1] == 23 * 3_600_000)
        let october = UsageInterval.day.starts(from: ms("2025-10-26T00:00:00Z"), to: ms("2025-10-27T12:00:00Z"),
                                               in: berlin)
        #expect(october.map { Timestamp(milliseconds: $0).rfc3339 } == [
            "2025-10-25T22:00:00Z", "2025-10-26T23:00:00Z",
        ])
        #expect(october[1] - october[0] == 25 * 3_600_000)
    }

    @Test func newYorkHoursOnTheShortAndLongDays() throws {
        let newYork = try TimeZoneRules.named("America/New_York")
        let short = UsageInterval.hour.starts(from: ms("2025-03-09T05:00:00Z"), to: ms("2025-03-10T04:00:00Z"),
                                              in: newYork)
        let long = UsageInterval.hour.starts(from: ms("2025-11-02T04:00:00Z"), to: ms("2025-11-03T05:00:00Z"),
                                             in: newYork)
        #expect(short.count == 23)
        #expect(long.count == 25)
        #expect(zip(long, long.dropFirst()).allSatisfy { $1 - $0 == 3_600_000 })
    }

    @Test func weeksBeginOnMonday() throws {
        let newYork = try TimeZoneRules.named("America/New_York")
        // Sunday 2 November 2025, 23:30 in New York: its week began Monday 27 October, in EDT.
        let start = UsageInterval.week.start(containing: ms("2025-11-03T04:30:00Z"), in: newYork)
        #expect(Timestamp(milliseconds: start).rfc3339 == "2025-10-27T04:00:00Z")
        // That week has 7 days and one hour.
        #expect(UsageInterval.week.next(after: start, in: newYork) == ms("2025-11-03T05:00:00Z"))
    }

    @Test func monthsInTheZone() throws {
        let berlin = try TimeZoneRules.named("Europe/Berlin")
        let months = UsageInterval.month.starts(from: ms("2024-12-31T23:30:00Z"), to: ms("2025-04-01T00:00:00Z"),
                                                in: berlin)
        #expect(months.map { Timestamp(milliseconds: $0).rfc3339 } == [
            "2024-12-31T23:00:00Z", "2025-01-31T23:00:00Z", "2025-02-28T23:00:00Z", "2025-03-31T22:00:00Z",
        ])
    }

    @Test func hoursOfAHalfHourZone() throws {
        let kolkata = try TimeZoneRules.named("Asia/Kolkata")
        let start = UsageInterval.hour.start(containing: ms("2025-06-01T10:10:00Z"), in: kolkata)
        #expect(Timestamp(milliseconds: start).rfc3339 == "2025-06-01T09:30:00Z")
        let day = UsageInterval.day.start(containing: ms("2025-06-01T10:10:00Z"), in: kolkata)
        #expect(Timestamp(milliseconds: day).rfc3339 == "2025-05-31T18:30:00Z")
    }

    /// Where midnight itself is skipped (Santiago springs forward at 24:00), the
    /// day begins at 01:00, the first time its clock shows.
    @Test func aDayWhoseMidnightIsSkipped() throws {
        let santiago = try TimeZoneRules.named("America/Santiago")
        // 7 September 2025: clocks jump from 00:00 (-04) to 01:00 (-03), at 04:00 UTC.
        let start = UsageInterval.day.start(containing: ms("2025-09-07T12:00:00Z"), in: santiago)
        #expect(Timestamp(milliseconds: start).rfc3339 == "2025-09-07T04:00:00Z")
        #expect(UsageInterval.day.next(after: ms("2025-09-06T04:00:00Z"), in: santiago) == start)
    }

    @Test func everyIntervalTilesTheYear() throws {
        for zone in ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "UTC"] {
            let rules = try TimeZoneRules.named(zone)
            for interval in UsageInterval.allCases {
                let starts = interval.starts(from: ms("2025-01-01T00:00:00Z"), to: ms("2026-01-01T00:00:00Z"),
                                             in: rules)
                #expect(zip(starts, starts.dropFirst()).allSatisfy { $0 < $1 }, "\(zone) \(interval)")
                for start in starts {
                    #expect(interval.start(containing: start, in: rules) == start, "\(zone) \(interval)")
                    let next = interval.next(after: start, in: rules)
                    #expect(interval.start(containing: next - 1, in: rules) == start, "\(zone) \(interval)")
                }
            }
        }
    }
}
