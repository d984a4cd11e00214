import SenseiModels

/// A page of a walk over a sensor's readings that SQL cannot page by itself
/// (packed hours merged in): skips the query's `offset` and stops at its
/// `limit`, as OFFSET and LIMIT would. Both backends fill one.
struct ReadingPage {
    private var skip: Int
    private let limit: Int
    private(set) var readings: [Reading] = []

    init(_ query: ReadingQuery, capacity: Int) {
        skip = query.offset
        limit = query.limit
        readings.reserveCapacity(Swift.min(query.limit, capacity))
    }

    /// Takes the walk's next reading; false once the page is full.
    mutating func take(_ ts: Int64, _ value: Double) -> Bool {
        if skip > 0 {
            skip -= 1
            return true
        }
        guard readings.count < limit else { return false }
        readings.append(Reading(timestamp: Timestamp(milliseconds: ts), value: value))
        return readings.count < limit
    }
}
