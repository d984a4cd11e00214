import PostgresNIO
import SenseiModels

/// Reading readings back (`ReadingStore`'s reads): raw pages, every sensor's
/// pages, InfluxQL's raw points, usage.
extension PostgresStore: ReadingStore {
    func readings(of reference: SensorReference, _ query: ReadingQuery) throws -> (Sensor, [Reading]) {
        throw PostgresStoreError.notYet("readings")
    }

    func readingsOfEverySensor(_ query: BulkQuery,
                               _ visit: (BulkSensor, Int64, Double) throws -> Void) throws -> BulkCursor? {
        throw PostgresStoreError.notYet("readingsOfEverySensor")
    }

    func influxReadings(of sensorIDs: [Int64], from lo: Int64, through hi: Int64, ascending: Bool, limit: Int,
                        _ body: (_ sensor: Int, _ ts: Int64, _ value: Double) throws -> Void) throws {
        throw PostgresStoreError.notYet("influxReadings")
    }

    func influxFirstTime(of sensorIDs: [Int64]) throws -> Int64? {
        throw PostgresStoreError.notYet("influxFirstTime")
    }

    func usage(of reference: SensorReference, _ query: UsageQuery) throws -> UsageReport {
        throw PostgresStoreError.notYet("usage")
    }
}
