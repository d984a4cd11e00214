import SenseiModels

/// Aggregates over spans, read from the minute and hour rollups and the
/// readings at the edges: charts' buckets, `GET …/aggregates`, InfluxQL's
/// aggregate functions.
protocol RollupStore: AnyObject, Sendable {
    func buckets(of reference: SensorReference, after: Timestamp, before: Timestamp,
                 count: Int) throws -> (Sensor, [Bucket])
    func aggregates(of reference: SensorReference, level: RollupLevel, after: Timestamp?, before: Timestamp?,
                    limit: Int) throws -> (Sensor, [SpanAggregate])
    func aggregatesOfEverySensor(_ query: BulkQuery, level: RollupLevel,
                                 _ visit: (BulkSensor, SpanAggregate) throws -> Void) throws -> BulkCursor?
    /// Whole minutes (hours when `hourly`) of `lo...hi` as count, sum, min and max, and the readings of the
    /// parts at the edges, `body` given the sensor's index in `sensorIDs`.
    func influxPieces(of sensorIDs: [Int64], from lo: Int64, through hi: Int64, hourly: Bool,
                      _ body: (_ sensor: Int, _ start: Int64, _ count: Int, _ sum: Double, _ min: Double,
                               _ max: Double) -> Void) throws
}

extension SenseiStore: RollupStore {}
