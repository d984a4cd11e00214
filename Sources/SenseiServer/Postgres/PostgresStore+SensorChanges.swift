import SenseiPostgres
import SenseiModels

/// Changing and deleting sensors, and the InfluxQL catalog (`SensorStore`).
extension PostgresStore {
    /// Changes a sensor's metadata in one statement on its row (nil fields
    /// stay, `retentionDays` `.some(nil)` keeps readings forever), so that
    /// two nodes changing different fields at once both keep theirs. A name,
    /// units or kind set here are a person's: ingest no longer replaces them.
    public func updateSensor(_ reference: SensorReference, name: String?, units: String?, valueType: ValueType?,
                             retentionDays: Int?? = nil, labels: LabelPatch? = nil, kind: SensorKind? = nil,
                             at now: Timestamp = .now()) throws -> Sensor {
        let setsRetention = retentionDays != nil
        let retention = retentionDays.flatMap { $0 }.map(Int32.init)
        var update: PGQuery = """
            UPDATE sensors SET name = coalesce(\(name)::text, name), units = coalesce(\(units)::text, units),
                value_type = coalesce(\(valueType?.rawValue)::text, value_type),
                retention_days = CASE WHEN \(setsRetention) THEN \(retention)::integer ELSE retention_days END,
                kind = coalesce(\(kind?.rawValue)::text, kind), updated_at = \(now.milliseconds),
                name_from_ingest = name_from_ingest AND \(name == nil),
                units_from_ingest = units_from_ingest AND \(units == nil),
                kind_from_ingest = kind_from_ingest AND \(kind == nil)
            """
        Self.appendWhere(reference, to: &update)
        update.sql += " RETURNING id"
        return try write { session in
            guard let id = try session.row(update)?.decode(Int64.self) else {
                throw StoreError.sensorNotFound(reference)
            }
            // The sensor's row is locked from here on: label patches of one sensor take turns.
            if let labels { try Self.applyLabels(labels, to: id, in: session) }
            return try Self.fetchSensor(.id(id), in: session)!
        }
    }

    /// Deletes a sensor and every row of it: the foreign keys cascade to
    /// blocks, labels, series and alert rules; its readings (which have no
    /// foreign key) are deleted here, once its row is deleted: a write to it
    /// under way holds that row until it commits, and one after finds no sensor.
    public func deleteSensor(_ reference: SensorReference) throws {
        var delete: PGQuery = "DELETE FROM sensors"
        Self.appendWhere(reference, to: &delete)
        delete.sql += " RETURNING id"
        let deleted = try write { session -> Bool in
            guard let id = try session.row(delete)?.decode(Int64.self) else { return false }
            try session.execute("DELETE FROM readings WHERE sensor_id = \(id)")
            return true
        }
        guard deleted else { throw StoreError.sensorNotFound(reference) }
    }

    /// ` WHERE id = $n` or ` WHERE code = $n`, the next parameter.
    static func appendWhere(_ reference: SensorReference, to query: inout PGQuery) {
        switch reference {
        case .id(let id):
            query.sql += " WHERE id = $\(query.binds.count + 1)"
            query.binds.append(id)
        case .code(let code):
            query.sql += " WHERE code = $\(query.binds.count + 1)"
            query.binds.append(code)
        }
    }

    /// Applies a merge patch to the labels; the result must keep within
    /// `SensorLabels.maximumCount` (else the transaction is rolled back).
    private static func applyLabels(_ patch: LabelPatch, to id: Int64, in session: PostgresSession) throws {
        let removed = patch.filter { $0.value == nil }.map(\.key)
        if !removed.isEmpty {
            try session.execute("DELETE FROM sensor_labels WHERE sensor_id = \(id) AND key = ANY(\(removed)::text[])")
        }
        try insertLabels(patch.compactMapValues { $0 }, of: id, in: session)
        let count = Int(try session.row("SELECT count(*) FROM sensor_labels WHERE sensor_id = \(id)")?
            .decode(Int64.self) ?? 0)
        guard count <= SensorLabels.maximumCount else { throw StoreError.tooManyLabels(count) }
    }

    /// Every sensor as InfluxQL sees it, labels included, in one query.
    func influxCatalog() throws -> InfluxCatalog {
        let rows = try read { session in
            try session.rows("""
                SELECT s.id, s.code, s.value_type,
                       coalesce(array_agg(l.key ORDER BY l.key) FILTER (WHERE l.key IS NOT NULL), '{}') AS label_keys,
                       coalesce(array_agg(l.value ORDER BY l.key) FILTER (WHERE l.key IS NOT NULL), '{}')
                           AS label_values
                FROM sensors s LEFT JOIN sensor_labels l ON l.sensor_id = s.id
                GROUP BY s.id ORDER BY s.id
                """)
        }
        return InfluxCatalog(series: try rows.map { row in
            let (id, code, valueType, keys, values) = try row.decode((Int64, String, String, [String], [String]).self)
            return InfluxSeries(sensorID: id, code: code, valueType: ValueType(rawValue: valueType) ?? .float,
                                labels: Dictionary(zip(keys, values), uniquingKeysWith: { _, last in last }))
        })
    }

    /// `SHOW TAG VALUES WITH KEY …` without WHERE, from the label index alone
    /// (as SQLite's): the distinct (measurement, key, value) of those keys.
    func influxTagValues(keys: [String]) throws -> [(measurement: String, key: String, value: String)] {
        let wanted = keys.filter { !InfluxSeries.untaggedLabels.contains($0) }
        guard !wanted.isEmpty else { return [] }
        return try read { session in
            try session.rows("""
                SELECT DISTINCT coalesce(m.value, s.code), l.key, l.value
                FROM sensor_labels l
                JOIN sensors s ON s.id = l.sensor_id
                LEFT JOIN sensor_labels m ON m.sensor_id = l.sensor_id AND m.key = 'measurement'
                WHERE l.key = ANY(\(wanted)::text[])
                """).map { row -> (measurement: String, key: String, value: String) in
                let (measurement, key, value) = try row.decode((String, String, String).self)
                return (measurement, key, value)
            }
        }
    }
}
