import GRDB
import SenseiModels

extension SenseiStore {
    /// The columns a sensor is read from, in select order: the C-API read
    /// (`sensor(from:)`) names each by its case, and the select list is made
    /// from the cases, so the two cannot drift.
    enum SensorColumn: Int32, CaseIterable {
        case id, code, name, units, valueType, createdAt, updatedAt, readingCount, latestTs, latestValue,
             retentionDays, kind

        var sql: String {
            switch self {
            case .valueType: "value_type"
            case .createdAt: "created_at"
            case .updatedAt: "updated_at"
            case .readingCount: "reading_count"
            case .latestTs: "latest_ts"
            case .latestValue: "latest_value"
            case .retentionDays: "retention_days"
            default: "\(self)"
            }
        }
    }

    static let sensorColumns = SensorColumn.allCases.map(\.sql).joined(separator: ", ")

    /// `sensors(labeled:)` one at a time, inside one read: the sensors and
    /// their labels are two queries in id order walked side by side, so a
    /// list of 10,000 sensors is written out without holding 10,000 rows,
    /// sensors and label dictionaries at once (that peak took the server's
    /// RSS from 46 to 71 MB).
    public func forEachSensor(labeled filter: [(key: String, value: String)] = [],
                              _ body: (Sensor) throws -> Void) throws {
        try pool.read { db in
            let sensors = BoundStatement(try db.cachedStatement(sql: """
                SELECT \(Self.sensorColumns) FROM sensors \(Self.labelFilterClause(filter, column: "id")) ORDER BY id
                """))
            Self.bindLabelFilter(filter, to: sensors)
            let labels = BoundStatement(try db.cachedStatement(sql: """
                SELECT sensor_id, key, value FROM sensor_labels \(Self.labelFilterClause(filter, column: "sensor_id"))
                ORDER BY sensor_id
                """))
            Self.bindLabelFilter(filter, to: labels)
            defer { labels.reset() }
            var label = try labels.step()
            try sensors.forEachRow { columns in
                var sensor = Self.sensor(from: columns)
                while let current = label, current.int64(0) <= sensor.id {
                    if current.int64(0) == sensor.id { sensor.labels[current.text(1)] = current.text(2) }
                    label = try labels.step()
                }
                try body(sensor)
            }
        }
    }

    /// A row of `sensorColumns`, read through the C API (10,000 sensors a
    /// list: no `Row` a sensor).
    static func sensor(from columns: BoundStatement.Columns) -> Sensor {
        typealias C = SensorColumn
        let latest = columns.optionalInt64(C.latestTs.rawValue).map {
            Reading(timestamp: Timestamp(milliseconds: $0), value: columns.double(C.latestValue.rawValue))
        }
        return Sensor(
            id: columns.int64(C.id.rawValue), code: columns.text(C.code.rawValue), name: columns.text(C.name.rawValue),
            units: columns.text(C.units.rawValue),
            valueType: ValueType(rawValue: columns.text(C.valueType.rawValue)) ?? .float,
            createdAt: Timestamp(milliseconds: columns.int64(C.createdAt.rawValue)),
            updatedAt: Timestamp(milliseconds: columns.int64(C.updatedAt.rawValue)),
            latest: latest, count: Int(columns.int64(C.readingCount.rawValue)),
            retentionDays: columns.optionalInt(C.retentionDays.rawValue),
            kind: SensorKind(rawValue: columns.text(C.kind.rawValue)) ?? .gauge)
    }

    public func sensor(_ reference: SensorReference) throws -> Sensor? {
        try pool.read { db in try Self.fetchSensor(reference, in: db) }
    }

    static func fetchSensor(_ reference: SensorReference, in db: Database) throws -> Sensor? {
        let lookup: BoundStatement
        switch reference {
        case .id(let id):
            lookup = BoundStatement(try db.cachedStatement(sql: "SELECT \(sensorColumns) FROM sensors WHERE id = ?"))
            lookup.bind(1, id)
        case .code(let code):
            lookup = BoundStatement(try db.cachedStatement(sql: "SELECT \(sensorColumns) FROM sensors WHERE code = ?"))
            lookup.bind(1, code)
        }
        guard var sensor = try lookup.first(sensor(from:)) else { return nil }
        sensor.labels = try labels(of: sensor.id, in: db)
        return sensor
    }

    /// Creates a sensor; `StoreError.codeTaken` if the code exists,
    /// `StoreError.sensorLimit` if the server holds `maxSensors` already.
    /// `retentionDays` nil keeps its readings forever. `labels` must follow
    /// `SensorLabels`' rules (the route checks them). A kind given here is a
    /// person's: ingest never changes it.
    public func createSensor(code: String, name: String?, units: String, valueType: ValueType,
                             retentionDays: Int? = nil, labels: [String: String] = [:], kind: SensorKind = .gauge,
                             at now: Timestamp = .now()) throws -> Sensor {
        let maxSensors = maxSensors
        return try groupCommit.write { db in
            if try Self.fetchSensor(.code(code), in: db) != nil { throw StoreError.codeTaken(code) }
            try Self.requireRoom(for: 1, maxSensors: maxSensors, in: db)
            let id = try Self.insertSensor(code: code, name: name, units: units, valueType: valueType,
                                           retentionDays: retentionDays, kind: kind, at: now, in: db)
            try Self.insertLabels(labels, of: id, in: db)
            return try Self.fetchSensor(.id(id), in: db)!
        }
    }

    /// `fromIngest`: the name, units and kind are an ingest path's, which its
    /// later metadata may replace (`sensors.name_from_ingest`).
    static func insertSensor(code: String, name: String?, units: String, valueType: ValueType,
                             retentionDays: Int? = nil, kind: SensorKind = .gauge, fromIngest: Bool = false,
                             at now: Timestamp, in db: Database) throws -> Int64 {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO sensors (code, name, units, value_type, created_at, updated_at, retention_days,
                                 name_from_ingest, units_from_ingest, kind, kind_from_ingest)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        try statement.execute(arguments: [
            code, name ?? SensorCode.defaultName(for: code), units, valueType.rawValue,
            now.milliseconds, now.milliseconds, retentionDays, fromIngest, fromIngest, kind.rawValue, fromIngest,
        ])
        return db.lastInsertedRowID
    }

    /// Throws `StoreError.sensorLimit` unless `count` more sensors fit under `maxSensors`.
    static func requireRoom(for count: Int, maxSensors: Int, in db: Database) throws {
        let existing = try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM sensors")) ?? 0
        guard existing + count <= maxSensors else { throw StoreError.sensorLimit(maxSensors) }
    }

    /// Changes a sensor's metadata; nil fields stay as they are. For
    /// `retentionDays`, `.some(nil)` keeps the readings forever. A name,
    /// units or kind set here are a person's: ingest metadata no longer
    /// replaces them.
    public func updateSensor(_ reference: SensorReference, name: String?, units: String?,
                             valueType: ValueType?, retentionDays: Int?? = nil, labels: LabelPatch? = nil,
                             kind: SensorKind? = nil, at now: Timestamp = .now()) throws -> Sensor {
        try groupCommit.write { db in
            guard let sensor = try Self.fetchSensor(reference, in: db) else {
                throw StoreError.sensorNotFound(reference)
            }
            try db.execute(
                sql: """
                    UPDATE sensors SET name = ?, units = ?, value_type = ?, retention_days = ?, kind = ?,
                        updated_at = ?, name_from_ingest = name_from_ingest AND ?,
                        units_from_ingest = units_from_ingest AND ?, kind_from_ingest = kind_from_ingest AND ?
                    WHERE id = ?
                    """,
                arguments: [name ?? sensor.name, units ?? sensor.units, (valueType ?? sensor.valueType).rawValue,
                            retentionDays ?? sensor.retentionDays, (kind ?? sensor.kind).rawValue, now.milliseconds,
                            name == nil, units == nil, kind == nil, sensor.id])
            if let labels { try Self.applyLabels(labels, to: sensor.id, in: db) }
            return try Self.fetchSensor(.id(sensor.id), in: db)!
        }
    }

    /// Deletes a sensor and every row of it: readings, blocks, rollups,
    /// labels, series, alert rules. The writer does not enforce foreign keys
    /// (see `SenseiStore.init`), so this is the cascade: every table whose
    /// foreign key points at `sensors` (read from the schema, so a table
    /// added later is not forgotten), one range delete each.
    public func deleteSensor(_ reference: SensorReference) throws {
        try groupCommit.write { db in
            guard let sensor = try Self.fetchSensor(reference, in: db) else {
                throw StoreError.sensorNotFound(reference)
            }
            for (table, column) in try Self.tablesOwnedBySensors(in: db) {
                try db.execute(sql: "DELETE FROM \(table) WHERE \(column) = ?", arguments: [sensor.id])
            }
            try db.execute(sql: "DELETE FROM sensors WHERE id = ?", arguments: [sensor.id])
        }
    }

    /// The tables (and their column) that schema.sql declares `REFERENCES sensors(id)`.
    static func tablesOwnedBySensors(in db: Database) throws -> [(table: String, column: String)] {
        try Row.fetchAll(db, sql: """
            SELECT m.name AS "table", f."from" AS "column" FROM sqlite_schema m, pragma_foreign_key_list(m.name) f
            WHERE m.type = 'table' AND f."table" = 'sensors' ORDER BY m.name
            """).map { ($0["table"], $0["column"]) }
    }
}
