import SenseiModels

extension UsageReport {
    /// What `GET /sensors/<id>/usage` answers once `accumulator` has seen
    /// the sensor's readings: an interval a bucket, complete once it ended
    /// before `query.now`. Both stores end their usage here.
    init(sensor: Sensor, query: UsageQuery, accumulator: UsageAccumulator) {
        let buckets = zip(query.boundaries, query.boundaries.dropFirst()).enumerated().map { index, interval in
            UsageBucket(start: Timestamp(milliseconds: interval.0), value: accumulator.values[index],
                        count: accumulator.counts[index], complete: interval.1 <= query.now.milliseconds)
        }
        self.init(sensor: sensor.code, interval: query.interval, timeZone: query.zone.identifier,
                  units: sensor.kind.usageUnits(forSensorUnits: sensor.units), usage: buckets)
    }
}
