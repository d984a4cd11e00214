import GRDB
import SenseiModels

/// What `GET /sensors/<id>/usage` asks: the intervals, their zone, the range and
/// a gauge's longest bridged gap.
public struct UsageQuery: Sendable {
    public var interval: UsageInterval
    public var zone: TimeZoneRules
    /// Interval starts, oldest first, then the end of the last.
    public var boundaries: [Int64]
    public var maxGap: Int64
    public var now: Timestamp

    public init(interval: UsageInterval, zone: TimeZoneRules, boundaries: [Int64], maxGap: Int64, now: Timestamp) {
        self.interval = interval
        self.zone = zone
        self.boundaries = boundaries
        self.maxGap = maxGap
        self.now = now
    }
}

extension SenseiStore {
    /// A sensor's usage per interval, as its stored kind counts it, from its
    /// readings wherever they are kept, in one pass oldest first: rows one by
    /// one, a packed hour by its summary when that is enough
    /// (`UsageAccumulator.add(_:)`), else decoded.
    public func usage(of reference: SensorReference, _ query: UsageQuery) throws -> UsageReport {
        try pool.read { db in
            guard let sensor = try Self.fetchSensor(reference, in: db) else {
                throw StoreError.sensorNotFound(reference)
            }
            let first = query.boundaries[0], end = query.boundaries[query.boundaries.count - 1]
            let kind = sensor.kind
            var accumulator = UsageAccumulator(kind: kind, boundaries: query.boundaries, maxGap: query.maxGap)
            // The reading before the range, and the one after it, carry their
            // share of the pieces that straddle its ends.
            try ReadingRange(sensorID: sensor.id, lo: Timestamp.range.lowerBound, hi: first - 1)
                .forEach(ascending: false, in: db) { ts, value in
                    accumulator.add(time: ts, value: value)
                    return false
                }
            let range = ReadingRange(sensorID: sensor.id, lo: first, hi: Timestamp.range.upperBound)
            // A local function, not a closure value: passed only where it
            // cannot escape, the accumulator stays unboxed (a closure value
            // made the decoded path twice as slow as before: 110 ms a year by
            // month where the old walk took 47).
            func feed(_ ts: Int64, _ value: Double) -> Bool {
                accumulator.add(time: ts, value: value)
                return ts < end
            }
            try range.forEachRowOrBlock(ascending: true, blockColumns: "data, count, \(PackedHours.summaryColumns)",
                                        in: db, row: feed) { block in
                if let summary = PackedHours.summary(in: block, from: 3, count: Int(block.int64(2))) {
                    if accumulator.add(summary) { return true }
                    // Past the range, its first reading is the one after it.
                    if summary.firstTime >= end { return feed(summary.firstTime, summary.firstValue) }
                }
                return try range.forEachReading(in: block.blob(1), ascending: true, feed)
            }
            return UsageReport(sensor: sensor, query: query, accumulator: accumulator)
        }
    }
}
