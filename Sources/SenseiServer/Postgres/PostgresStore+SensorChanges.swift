import PostgresNIO
import SenseiModels

/// Changing and deleting sensors, and the InfluxQL catalog (`SensorStore`).
extension PostgresStore {
    public func updateSensor(_ reference: SensorReference, name: String?, units: String?, valueType: ValueType?,
                             retentionDays: Int?? = nil, labels: LabelPatch? = nil, kind: SensorKind? = nil,
                             at now: Timestamp = .now()) throws -> Sensor {
        throw PostgresStoreError.notYet("updateSensor")
    }

    public func deleteSensor(_ reference: SensorReference) throws {
        throw PostgresStoreError.notYet("deleteSensor")
    }

    func influxCatalog() throws -> InfluxCatalog {
        throw PostgresStoreError.notYet("influxCatalog")
    }

    func influxTagValues(keys: [String]) throws -> [(measurement: String, key: String, value: String)] {
        throw PostgresStoreError.notYet("influxTagValues")
    }
}
