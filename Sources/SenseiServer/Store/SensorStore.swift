import SenseiModels

/// Sensors and their labels: what the routes, ingest and InfluxQL read and
/// change of a sensor itself.
///
/// One of the seams the store is split along (with `ReadingStore`,
/// `RollupStore`, `AlertStore`, `TokenStore`, `MaintenanceStore`): the code
/// above the store holds these protocols, never the SQLite type, so a second
/// backend (PostgreSQL, issue 28) conforms to them and reuses the server
/// whole. `SenseiStore` is the SQLite one. Requirements carry no default
/// arguments (a protocol cannot); `SenseiStore`'s own methods keep theirs.
protocol SensorStore: AnyObject, Sendable {
    /// Grows with every committed write: a response built from the data can
    /// be reused while it stays the same.
    var changeCount: UInt64 { get }

    /// Every sensor carrying all of `filter`'s pairs, in id order, one at a time.
    func forEachSensor(labeled filter: [(key: String, value: String)], _ body: (Sensor) throws -> Void) throws
    func sensor(_ reference: SensorReference) throws -> Sensor?
    func sensorCount() throws -> Int

    /// `StoreError.codeTaken`, `.sensorLimit` when refused.
    func createSensor(code: String, name: String?, units: String, valueType: ValueType, retentionDays: Int?,
                      labels: [String: String], kind: SensorKind, at now: Timestamp) throws -> Sensor
    /// nil fields stay; `retentionDays` `.some(nil)` keeps readings forever.
    func updateSensor(_ reference: SensorReference, name: String?, units: String?, valueType: ValueType?,
                      retentionDays: Int??, labels: LabelPatch?, kind: SensorKind?, at now: Timestamp) throws -> Sensor
    /// Deletes the sensor and every row of it (readings, rollups, labels, series, alert rules).
    func deleteSensor(_ reference: SensorReference) throws

    /// Every sensor as InfluxQL sees it (measurement, field, tags).
    func influxCatalog() throws -> InfluxCatalog
    /// The distinct (measurement, key, value) of these label keys.
    func influxTagValues(keys: [String]) throws -> [(measurement: String, key: String, value: String)]
}

extension SensorStore {
    /// Every sensor, oldest first; with `filter`, only those carrying every
    /// one of its pairs.
    func sensors(labeled filter: [(key: String, value: String)] = []) throws -> [Sensor] {
        var sensors: [Sensor] = []
        try forEachSensor(labeled: filter) { sensors.append($0) }
        return sensors
    }
}

extension SenseiStore: SensorStore {}
