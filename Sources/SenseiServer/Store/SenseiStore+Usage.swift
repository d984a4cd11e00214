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
    /// A sensor's usage per interval, from its readings wherever they are kept
    /// (rows or packed hours), in one pass oldest first: a counter's increase
    /// or a gauge's integral, as the sensor's stored kind says.
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
            try ReadingRange(sensorID: sensor.id, lo: first, hi: Timestamp.range.upperBound)
                .forEach(ascending: true, in: db) { ts, value in
                    accumulator.add(time: ts, value: value)
                    return ts < end
                }
            let buckets = zip(query.boundaries, query.boundaries.dropFirst()).enumerated().map { index, interval in
                UsageBucket(start: Timestamp(milliseconds: interval.0), value: accumulator.values[index],
                            count: accumulator.counts[index], complete: interval.1 <= query.now.milliseconds)
            }
            return UsageReport(sensor: sensor.code, interval: query.interval, timeZone: query.zone.identifier,
                               units: kind.usageUnits(forSensorUnits: sensor.units), usage: buckets)
        }
    }
}
