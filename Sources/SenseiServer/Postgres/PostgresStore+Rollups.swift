import PostgresNIO
import SenseiModels

/// Charts and aggregates (`RollupStore`): packed hours' rollup columns, and
/// the rows not yet packed added up by the query.
extension PostgresStore: RollupStore {
    func buckets(of reference: SensorReference, after: Timestamp, before: Timestamp,
                 count: Int) throws -> (Sensor, [Bucket]) {
        throw PostgresStoreError.notYet("buckets")
    }

    func aggregates(of reference: SensorReference, level: RollupLevel, after: Timestamp?, before: Timestamp?,
                    limit: Int) throws -> (Sensor, [SpanAggregate]) {
        throw PostgresStoreError.notYet("aggregates")
    }

    func aggregatesOfEverySensor(_ query: BulkQuery, level: RollupLevel,
                                 _ visit: (BulkSensor, SpanAggregate) throws -> Void) throws -> BulkCursor? {
        throw PostgresStoreError.notYet("aggregatesOfEverySensor")
    }

    func influxPieces(of sensorIDs: [Int64], from lo: Int64, through hi: Int64, hourly: Bool,
                      _ body: (_ sensor: Int, _ start: Int64, _ count: Int, _ sum: Double, _ min: Double,
                               _ max: Double) -> Void) throws {
        throw PostgresStoreError.notYet("influxPieces")
    }
}
