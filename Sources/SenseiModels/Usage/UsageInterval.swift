/// The calendar intervals usage is counted in: a zone's hours, days, weeks
/// (from Monday) and months. A day is whatever its wall clock says: 23 hours
/// when the clocks go forward, 25 when they go back.
public enum UsageInterval: String, Sendable, Hashable, CaseIterable {
    case hour, day, week, month

    /// The start (UTC milliseconds) of the interval holding `milliseconds`.
    public func start(containing milliseconds: Int64, in zone: TimeZoneRules) -> Int64 {
        let local = zone.local(milliseconds)
        switch self {
        case .hour:
            // An hour of the wall clock: in a zone whose offset has minutes (+05:30)
            // it begins at :30 past the UTC hour. A change of offset also begins
            // one, so that no instant lies in two (Lord Howe's half-hour shifts).
            let whole = milliseconds - local.floorDivided(by: 3_600_000).1
            return zone.offsetMilliseconds(at: whole) == zone.offsetMilliseconds(at: milliseconds)
                ? whole : zone.firstChange(after: whole, through: milliseconds)
        case .day, .week, .month:
            return zone.firstInstant(atOrAfterLocal: Self.localStart(of: self, containing: local))
        }
    }

    /// The start of the interval after the one starting at `start`.
    public func next(after start: Int64, in zone: TimeZoneRules) -> Int64 {
        switch self {
        case .hour:
            let whole = start + 3_600_000 - zone.local(start).floorDivided(by: 3_600_000).1
            return zone.offsetMilliseconds(at: whole) == zone.offsetMilliseconds(at: start)
                ? whole : zone.firstChange(after: start, through: whole)
        case .day, .week, .month:
            // Local midday of the interval's first day, then on by its length in
            // days: a wall-clock date is never ambiguous at midday.
            let firstDay = (zone.local(start) + 43_200_000).floorDivided(by: 86_400_000).0
            let nextDay: Int64
            switch self {
            case .day: nextDay = firstDay + 1
            case .week: nextDay = firstDay + 7
            default:
                let (year, month, _) = CivilCalendar.civil(fromDays: firstDay)
                nextDay = month == 12 ? CivilCalendar.days(year: year + 1, month: 1, day: 1)
                    : CivilCalendar.days(year: year, month: month + 1, day: 1)
            }
            return zone.firstInstant(atOrAfterLocal: nextDay * 86_400_000)
        }
    }

    /// The starts of every interval whose start is at or after the start of the
    /// one holding `from` and before `to`, oldest first; at most `limit`.
    public func starts(from: Int64, to: Int64, in zone: TimeZoneRules, limit: Int = .max) -> [Int64] {
        var starts: [Int64] = []
        var start = self.start(containing: from, in: zone)
        while start < to, starts.count < limit {
            starts.append(start)
            start = next(after: start, in: zone)
        }
        return starts
    }

    /// The local midnight (as local milliseconds) that begins the day, week or
    /// month holding the local instant.
    private static func localStart(of interval: UsageInterval, containing local: Int64) -> Int64 {
        let days = local.floorDivided(by: 86_400_000).0
        switch interval {
        case .week:
            // 1970-01-01 was a Thursday (3 when Monday is 0).
            return (days - (days + 3).floorDivided(by: 7).1) * 86_400_000
        case .month:
            let (year, month, _) = CivilCalendar.civil(fromDays: days)
            return CivilCalendar.days(year: year, month: month, day: 1) * 86_400_000
        default:
            return days * 86_400_000
        }
    }
}
