import Foundation
import Testing
import SenseiModels
@testable import SenseiServer

/// The `usage_above` state machine on its own, at chosen instants: when it
/// fires, that it stays firing for the rest of its interval, and that it
/// resolves exactly when the next interval of its zone starts. Interval
/// ends are worked out with Foundation's calendar, not the server's.
@Suite("Alert judge on usage")
struct AlertUsageJudgeTests {
    static let rule = AlertRule(name: "Heat pump", sensorID: 1, condition: .usageAbove, threshold: 30, notify: ["http://h/x"],
                                interval: .day, timeZone: "Europe/Berlin")

    static func berlin() throws -> UsageCalendar {
        UsageCalendar(interval: .day, zone: try TimeZoneRules.named("Europe/Berlin"))
    }

    /// Milliseconds of a wall-clock time in `zone`, by Foundation.
    static func local(_ zone: String, _ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0) throws -> Int64 {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: zone))
        let date = try #require(calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour)))
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    @Test func firesOnlyPastTheThresholdAndOnlyFromOk() throws {
        let calendar = try Self.berlin()
        let now = try Self.local("Europe/Berlin", 2025, 6, 2, 18)
        let period = calendar.period(containing: now)
        let ok = AlertStatus.fresh(at: now - 1000, judgedTimestamp: nil)
        #expect(AlertJudge.judgeUsage(Self.rule, ok, usage: 30, of: period, now: now) == nil)
        let (firing, notice) = try #require(AlertJudge.judgeUsage(Self.rule, ok, usage: 30.5, of: period, now: now))
        #expect(notice == .firing)
        #expect(firing.state == .firing && firing.since == now && firing.value == 30.5 && firing.notifiedAt == now)
        // Firing: more usage changes nothing.
        #expect(AlertJudge.judgeUsage(Self.rule, firing, usage: 45, of: period, now: now + 60_000) == nil)
        // A usage of an interval that is no longer the running one (computed just before midnight) is not judged.
        #expect(AlertJudge.judgeUsage(Self.rule, ok, usage: 40, of: period, now: period.upperBound) == nil)
        // Readings and the silence timer leave a usage rule alone.
        #expect(AlertJudge.judge(Self.rule, ok, reading: 1e9, at: now, now: now) == nil)
        #expect(AlertJudge.tick(Self.rule, firing, lastSeen: 0, now: now + 86_400_000 * 3) == nil)
    }

    /// 26 October 2025 in Berlin has 25 hours: fired at noon, the rule is
    /// still firing a millisecond before the next local midnight, 25 hours
    /// after the day began, and resolves at it.
    @Test func resolvesAtTheStartOfTheNextLocalDayAcrossDaylightSaving() throws {
        let calendar = try Self.berlin()
        let noon = try Self.local("Europe/Berlin", 2025, 10, 26, 12)
        let dayStart = try Self.local("Europe/Berlin", 2025, 10, 26)
        let nextDay = try Self.local("Europe/Berlin", 2025, 10, 27)
        #expect(nextDay - dayStart == 25 * 3_600_000)
        #expect(calendar.period(containing: noon) == dayStart..<nextDay)

        let ok = AlertStatus.fresh(at: dayStart, judgedTimestamp: nil)
        let (firing, _) = try #require(AlertJudge.judgeUsage(Self.rule, ok, usage: 31, of: calendar.period(containing: noon),
                                                             now: noon))
        #expect(!AlertJudge.usageIntervalEnded(firing, calendar: calendar, now: nextDay - 1))
        #expect(AlertJudge.resolveUsage(Self.rule, firing, calendar: calendar, finished: 33, now: nextDay - 1) == nil)
        let (resolved, notice) = try #require(AlertJudge.resolveUsage(Self.rule, firing, calendar: calendar, finished: 33,
                                                                      now: nextDay))
        #expect(notice == .resolved)
        #expect(resolved.state == .ok && resolved.since == nextDay && resolved.value == 33)
        // The new day fires again once its own usage passes the threshold.
        let later = nextDay + 5 * 3_600_000
        let again = AlertJudge.judgeUsage(Self.rule, resolved, usage: 30.1, of: calendar.period(containing: later), now: later)
        #expect(again?.1 == .firing)
    }

    /// Every interval, in a zone with a half-hour offset: a rule fired at
    /// any instant resolves at the start of the next interval, no sooner.
    @Test(arguments: UsageInterval.allCases)
    func everyIntervalEndsWhereTheCalendarSays(interval: UsageInterval) throws {
        let zone = "Asia/Kolkata"
        let calendar = UsageCalendar(interval: interval, zone: try TimeZoneRules.named(zone))
        let now = try Self.local(zone, 2025, 2, 26, 15) + 17 * 60_000  // a Wednesday, 15:17
        let end = switch interval {
        case .hour: try Self.local(zone, 2025, 2, 26, 16)
        case .day: try Self.local(zone, 2025, 2, 27)
        case .week: try Self.local(zone, 2025, 3, 3)  // the next Monday
        case .month: try Self.local(zone, 2025, 3, 1)
        }
        var rule = Self.rule
        rule.interval = interval
        let (firing, _) = try #require(AlertJudge.judgeUsage(rule, .fresh(at: now, judgedTimestamp: nil), usage: 99,
                                                             of: calendar.period(containing: now), now: now))
        #expect(!AlertJudge.usageIntervalEnded(firing, calendar: calendar, now: end - 1))
        #expect(AlertJudge.usageIntervalEnded(firing, calendar: calendar, now: end))
    }
}
