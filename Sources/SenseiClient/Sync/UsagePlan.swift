import SenseiModels

/// Which usage intervals a detail range shows as bars: the last 24 hours by
/// hour (the hour range too: one bar would say nothing), the last 7 or 30
/// days by day, the last 12 months by month, all time by month (the bars
/// show the newest that fit; the total counts them all). Intervals are the
/// zone's calendar's, the running one last.
public struct UsagePlan: Hashable, Sendable {
    public var interval: UsageInterval
    /// The first interval's start and the end of the window (now), UTC ms:
    /// the server's `after` and `before`.
    public var after: Timestamp
    public var before: Timestamp

    /// Intervals shown for each range but `.all`, the running one included.
    static func intervalCount(_ range: TimeRange) -> Int {
        switch range {
        case .hour, .day: 24
        case .week: 7
        case .month: 30
        case .year, .all: 12
        }
    }

    /// `oldest`: the sensor's oldest reading, where `.all` starts (at most
    /// 50 years back: the server answers at most 10,000 intervals).
    public init(range: TimeRange, now: Timestamp, zone: TimeZoneRules, oldest: Timestamp? = nil) {
        interval = switch range {
        case .hour, .day: .hour
        case .week, .month: .day
        case .year, .all: .month
        }
        // Back one interval at a time through the zone's calendar: a day of 23
        // or 25 hours is one day, whatever its length.
        var start = interval.start(containing: now.milliseconds, in: zone)
        for _ in 1..<Self.intervalCount(range) { start = interval.start(containing: start - 1, in: zone) }
        if range == .all, let oldest {
            let floor = now.milliseconds - 50 * 366 * 86_400_000
            start = min(start, interval.start(containing: max(oldest.milliseconds, floor), in: zone))
        }
        after = Timestamp(milliseconds: start)
        before = now
    }
}

extension Sensor {
    /// Whether usage bars apply: a counter, or a power gauge (whose
    /// integral is energy). A temperature's integral means nothing to a person.
    public var hasUsage: Bool {
        kind == .counter || ["W", "kW", "MW"].contains(units)
    }
}
