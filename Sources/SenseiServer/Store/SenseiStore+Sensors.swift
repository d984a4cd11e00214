import GRDB
import SenseiModels

extension SenseiStore {
    static let sensorColumns = """
        id, code, name, units, value_type, created_at, updated_at, reading_count, latest_ts, latest_value,
        retention_days
        """

    static func sensor(from row: Row) -> Sensor {
        let latestTimestamp: Int64? = row[8]
        let latest = latestTimestamp.map { Reading(timestamp: Timestamp(milliseconds: $0), value: row[9]) }
        return Sensor(
            id: row[0], code: row[1], name: row[2], units: row[3],
            valueType: ValueType(rawValue: row[4]) ?? .float,
            createdAt: Timestamp(milliseconds: row[5]), updatedAt: Timestamp(milliseconds: row[6]),
            latest: latest, count: row[7], retentionDays: row[10])
    }

    /// Every sensor, oldest first.
    public func sensors() throws -> [Sensor] {
        try pool.read { db in
            let statement = try db.cachedStatement(sql: "SELECT \(Self.sensorColumns) FROM sensors ORDER BY id")
            return try Row.fetchAll(statement).map(Self.sensor(from:))
        }
    }

    public func sensor(_ reference: SensorReference) throws -> Sensor? {
        try pool.read { db in try Self.fetchSensor(reference, in: db) }
    }

    static func fetchSensor(_ reference: SensorReference, in db: Database) throws -> Sensor? {
        switch reference {
        case .id(let id):
            let statement = try db.cachedStatement(sql: "SELECT \(sensorColumns) FROM sensors WHERE id = ?")
            return try Row.fetchOne(statement, arguments: [id]).map(sensor(from:))
        case .code(let code):
            let statement = try db.cachedStatement(sql: "SELECT \(sensorColumns) FROM sensors WHERE code = ?")
            return try Row.fetchOne(statement, arguments: [code]).map(sensor(from:))
        }
    }

    /// Creates a sensor; `StoreError.codeTaken` if the code exists.
    /// `retentionDays` nil keeps its readings forever.
    public func createSensor(code: String, name: String?, units: String, valueType: ValueType,
                             retentionDays: Int? = nil, at now: Timestamp = .now()) throws -> Sensor {
        try groupCommit.write { db in
            if try Self.fetchSensor(.code(code), in: db) != nil { throw StoreError.codeTaken(code) }
            let id = try Self.insertSensor(code: code, name: name, units: units, valueType: valueType,
                                           retentionDays: retentionDays, at: now, in: db)
            return try Self.fetchSensor(.id(id), in: db)!
        }
    }

    static func insertSensor(code: String, name: String?, units: String, valueType: ValueType,
                             retentionDays: Int? = nil, at now: Timestamp, in db: Database) throws -> Int64 {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO sensors (code, name, units, value_type, created_at, updated_at, retention_days)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        try statement.execute(arguments: [
            code, name ?? SensorCode.defaultName(for: code), units, valueType.rawValue,
            now.milliseconds, now.milliseconds, retentionDays,
        ])
        return db.lastInsertedRowID
    }

    /// Changes a sensor's metadata; nil fields stay as they are. For
    /// `retentionDays`, `.some(nil)` keeps the readings forever.
    public func updateSensor(_ reference: SensorReference, name: String?, units: String?,
                             valueType: ValueType?, retentionDays: Int?? = nil,
                             at now: Timestamp = .now()) throws -> Sensor {
        try groupCommit.write { db in
            guard let sensor = try Self.fetchSensor(reference, in: db) else {
                throw StoreError.sensorNotFound(reference)
            }
            try db.execute(
                sql: """
                    UPDATE sensors SET name = ?, units = ?, value_type = ?, retention_days = ?, updated_at = ?
                    WHERE id = ?
                    """,
                arguments: [name ?? sensor.name, units ?? sensor.units, (valueType ?? sensor.valueType).rawValue,
                            retentionDays ?? sensor.retentionDays, now.milliseconds, sensor.id])
            return try Self.fetchSensor(.id(sensor.id), in: db)!
        }
    }

    /// Deletes a sensor, all its readings and their rollups.
    public func deleteSensor(_ reference: SensorReference) throws {
        try groupCommit.write { db in
            guard let sensor = try Self.fetchSensor(reference, in: db) else {
                throw StoreError.sensorNotFound(reference)
            }
            // Readings and rollups first, explicitly: one range delete each on
            // the clustered key.
            try db.execute(sql: "DELETE FROM readings WHERE sensor_id = ?", arguments: [sensor.id])
            try db.execute(sql: "DELETE FROM reading_blocks WHERE sensor_id = ?", arguments: [sensor.id])
            try db.execute(sql: "DELETE FROM rollups_minute WHERE sensor_id = ?", arguments: [sensor.id])
            try db.execute(sql: "DELETE FROM rollups_hour WHERE sensor_id = ?", arguments: [sensor.id])
            try db.execute(sql: "DELETE FROM sensors WHERE id = ?", arguments: [sensor.id])
        }
    }
}
