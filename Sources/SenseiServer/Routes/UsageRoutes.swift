import SenseiModels

/// A sensor's usage per hour, day, week or month of a time zone: a counter's
/// increase or a gauge's integral (docs/energy.md).
struct UsageRoutes {
    let store: any ReadingStore
    /// Enough for a year of hours; a longer range by hour is a 400.
    static let maximumIntervals = 10_000

    func addRoutes(to router: inout Router) {
        router.add("GET", "/sensors/:id/usage", scope: .read) { request, parameters in
            try usage(parameters["id"], request)
        }
    }

    private func usage(_ segment: String, _ request: Request) throws -> Response {
        let reference = try RequestDecoding.sensorReference(segment)
        let query = try Self.query(QueryParameters(request), now: .now())
        let report = try store.usage(of: reference, query)
        return .json(capacity: 128 + 96 * report.usage.count) { report.write(to: &$0) }
    }

    /// The query's parameters, each bad one a 400 naming it.
    static func query(_ parameters: QueryParameters, now: Timestamp) throws(APIError) -> UsageQuery {
        let names = UsageInterval.allCases.map(\.rawValue).joined(separator: ", ")
        let text = parameters.query["interval"] ?? "day"
        guard let interval = UsageInterval(rawValue: text) else {
            throw .badRequest("interval must be one of \(names), not '\(text)'")
        }
        let zone: TimeZoneRules
        do {
            zone = try parameters.query["tz"].map { name throws(TimeZoneError) in try TimeZoneRules.named(name) } ?? .utc
        } catch {
            throw .badRequest("tz: \(error.description) (an IANA name such as Europe/Berlin)")
        }
        let maxGap = try parameters.integer("maxGap", default: 900, in: 1...31_536_000)
        let (after, before) = try parameters.bounds()
        let end = (before ?? now).milliseconds
        let from = after?.milliseconds ?? Self.defaultStart(interval, before: end, in: zone)
        let starts = interval.starts(from: from, to: end, in: zone, limit: maximumIntervals + 1)
        guard starts.count <= maximumIntervals else {
            throw .badRequest("the range holds more than \(maximumIntervals) \(interval.rawValue)s; narrow after and before")
        }
        guard let last = starts.last else {
            throw .badRequest("no \(interval.rawValue) starts in the range; after must be before before")
        }
        let boundaries = starts + [interval.next(after: last, in: zone)]
        guard boundaries[0] >= Timestamp.range.lowerBound, last <= Timestamp.range.upperBound else {
            throw .badRequest("the range reaches past the years 0001 to 9999; move after and before")
        }
        return UsageQuery(interval: interval, zone: zone, boundaries: boundaries, maxGap: Int64(maxGap) * 1000,
                          now: now)
    }

    /// 29 intervals before the one holding `before`, as the contract's default.
    private static func defaultStart(_ interval: UsageInterval, before: Int64, in zone: TimeZoneRules) -> Int64 {
        var start = interval.start(containing: before - 1, in: zone)
        for _ in 0..<29 { start = interval.start(containing: start - 1, in: zone) }
        return start
    }
}
