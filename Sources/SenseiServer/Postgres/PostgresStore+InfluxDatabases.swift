import PostgresNIO
import SenseiModels

/// The database names InfluxDB clients used (`ReadingStore`): SHOW DATABASES lists them.
extension PostgresStore {
    func recordInfluxDatabase(_ name: String) throws {
        throw PostgresStoreError.notYet("recordInfluxDatabase")
    }

    func influxDatabases() throws -> [String] {
        throw PostgresStoreError.notYet("influxDatabases")
    }
}
