import SenseiPostgres
import SenseiModels

/// Sensors and their labels (`SensorStore`): reading and creating them. The
/// rest of the seam (update, delete, the InfluxQL catalog) is in
/// `PostgresStore+SensorChanges.swift`.
extension PostgresStore: SensorStore {
    /// The columns a sensor is read from, by name (`sensor(from:)`).
    static let sensorColumns = """
        id, code, name, units, value_type, created_at, updated_at, reading_count, latest_ts, latest_value,
        retention_days, kind
        """

    static func sensor(from row: PGRow) throws -> Sensor {
        let columns = row
        let latest = try columns["latest_ts"].decode(Int64?.self).map {
            Reading(timestamp: Timestamp(milliseconds: $0), value: try columns["latest_value"].decode(Double.self))
        }
        return Sensor(
            id: try columns["id"].decode(Int64.self), code: try columns["code"].decode(String.self),
            name: try columns["name"].decode(String.self), units: try columns["units"].decode(String.self),
            valueType: ValueType(rawValue: try columns["value_type"].decode(String.self)) ?? .float,
            createdAt: Timestamp(milliseconds: try columns["created_at"].decode(Int64.self)),
            updatedAt: Timestamp(milliseconds: try columns["updated_at"].decode(Int64.self)),
            latest: latest, count: Int(try columns["reading_count"].decode(Int64.self)),
            retentionDays: try columns["retention_days"].decode(Int32?.self).map(Int.init),
            kind: SensorKind(rawValue: try columns["kind"].decode(String.self)) ?? .gauge)
    }

    /// Every sensor carrying all of `filter`'s pairs, in id order, with its labels.
    public func forEachSensor(labeled filter: [(key: String, value: String)] = [],
                              _ body: (Sensor) throws -> Void) throws {
        // The labels ride along as two arrays, one row a sensor.
        var query = PGQuery(unsafeSQL: """
            SELECT \(Self.sensorColumns),
                   coalesce((SELECT array_agg(key ORDER BY key) FROM sensor_labels WHERE sensor_id = s.id), '{}')
                       AS label_keys,
                   coalesce((SELECT array_agg(value ORDER BY key) FROM sensor_labels WHERE sensor_id = s.id), '{}')
                       AS label_values
            FROM sensors s
            """)
        Self.appendLabelFilter(filter, to: &query)
        query.sql += " ORDER BY id"
        let rows = try read { try $0.rows(query) }
        for row in rows { try body(try Self.labeledSensor(from: row)) }
    }

    /// ` WHERE` (or ` AND`, when `query` has a WHERE already) the sensor `s`
    /// carries every pair of `filter`, bound after `query`'s parameters.
    static func appendLabelFilter(_ filter: [(key: String, value: String)], to query: inout PGQuery,
                                  hasWhere: Bool = false) {
        for (index, pair) in filter.enumerated() {
            query.sql += index == 0 && !hasWhere ? " WHERE " : " AND "
            let first = query.binds.count + 1
            query.sql += "EXISTS (SELECT 1 FROM sensor_labels l WHERE l.sensor_id = s.id AND l.key = $\(first)"
                + " AND l.value = $\(first + 1))"
            query.binds.append(pair.key)
            query.binds.append(pair.value)
        }
    }

    /// A sensor row with its `label_keys` and `label_values`.
    static func labeledSensor(from row: PGRow) throws -> Sensor {
        var sensor = try sensor(from: row)
        let columns = row
        let keys = try columns["label_keys"].decode([String].self)
        let values = try columns["label_values"].decode([String].self)
        sensor.labels = Dictionary(zip(keys, values), uniquingKeysWith: { _, last in last })
        return sensor
    }

    public func sensor(_ reference: SensorReference) throws -> Sensor? {
        try read { try Self.fetchSensor(reference, in: $0) }
    }

    static func fetchSensor(_ reference: SensorReference, in session: PostgresSession) throws -> Sensor? {
        let select = """
            SELECT \(sensorColumns),
                   coalesce((SELECT array_agg(key ORDER BY key) FROM sensor_labels WHERE sensor_id = s.id), '{}')
                       AS label_keys,
                   coalesce((SELECT array_agg(value ORDER BY key) FROM sensor_labels WHERE sensor_id = s.id), '{}')
                       AS label_values
            FROM sensors s
            """
        var query = PGQuery(unsafeSQL: select)
        appendWhere(reference, to: &query)
        return try session.row(query).map(labeledSensor(from:))
    }

    public func sensorCount() throws -> Int {
        try read { Int(try $0.row("SELECT count(*) FROM sensors")?.decode(Int64.self) ?? 0) }
    }

    public func createSensor(code: String, name: String?, units: String, valueType: ValueType,
                             retentionDays: Int? = nil, labels: [String: String] = [:], kind: SensorKind = .gauge,
                             at now: Timestamp = .now()) throws -> Sensor {
        try write { session in
            try Self.lockSensorCreation(in: session)
            if try Self.fetchSensor(.code(code), in: session) != nil { throw StoreError.codeTaken(code) }
            try Self.requireRoom(for: 1, maxSensors: maxSensors, in: session)
            let id = try Self.insertSensor(code: code, name: name, units: units, valueType: valueType,
                                           retentionDays: retentionDays, kind: kind, at: now, in: session)
            try Self.insertLabels(labels, of: id, in: session)
            return try Self.fetchSensor(.id(id), in: session)!
        }
    }

    /// Serialises sensor creation across nodes for the rest of the
    /// transaction, so that `maxSensors` and a code's uniqueness are checked
    /// against every node's creations, not only this one's.
    static func lockSensorCreation(in session: PostgresSession) throws {
        try session.execute("SELECT pg_advisory_xact_lock(\(PostgresSchema.lockKey + 1))")
    }

    /// `fromIngest`: the name, units and kind are an ingest path's, which its
    /// later metadata may replace.
    static func insertSensor(code: String, name: String?, units: String, valueType: ValueType,
                             retentionDays: Int? = nil, kind: SensorKind = .gauge, fromIngest: Bool = false,
                             at now: Timestamp, in session: PostgresSession) throws -> Int64 {
        let name = name ?? SensorCode.defaultName(for: code)
        let retention = retentionDays.map { Int32($0) }
        let row = try session.row("""
            INSERT INTO sensors (code, name, units, value_type, created_at, updated_at, retention_days,
                                 name_from_ingest, units_from_ingest, kind, kind_from_ingest)
            VALUES (\(code), \(name), \(units), \(valueType.rawValue), \(now.milliseconds), \(now.milliseconds),
                    \(retention), \(fromIngest), \(fromIngest), \(kind.rawValue), \(fromIngest))
            RETURNING id
            """)
        return try row!.decode(Int64.self)
    }

    static func insertLabels(_ labels: [String: String], of id: Int64, in session: PostgresSession) throws {
        guard !labels.isEmpty else { return }
        let keys = Array(labels.keys), values = keys.map { labels[$0]! }
        try session.execute("""
            INSERT INTO sensor_labels (sensor_id, key, value)
            SELECT \(id), key, value FROM unnest(\(keys)::text[], \(values)::text[]) AS l(key, value)
            ON CONFLICT (sensor_id, key) DO UPDATE SET value = EXCLUDED.value
            """)
    }

    /// Throws `StoreError.sensorLimit` unless `count` more sensors fit under `maxSensors`.
    static func requireRoom(for count: Int, maxSensors: Int, in session: PostgresSession) throws {
        let existing = try session.row("SELECT count(*) FROM sensors")?.decode(Int64.self) ?? 0
        guard Int(existing) + count <= maxSensors else { throw StoreError.sensorLimit(maxSensors) }
    }
}
