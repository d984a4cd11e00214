import GRDB
import SenseiModels

/// What `mergeSensors` changed.
public struct SensorMerge: Sendable, Equatable {
    /// Sensors the cache did not know, now at the end of the order.
    public var added: [Int64]
    /// Sensors no longer on the server, removed with their readings.
    public var removed: [Int64]
}

extension SensorCache {
    /// Makes the cache's sensors those of the server: metadata, latest reading
    /// and count updated, new ones appended to the user's order (in server id
    /// order), and those the server no longer has deleted with their readings.
    /// One transaction.
    @discardableResult
    public func mergeSensors(_ sensors: [Sensor]) throws -> SensorMerge {
        try pool.write { db in
            let known = Set(try Int64.fetchAll(db, sql: "SELECT id FROM sensors"))
            let incoming = Set(sensors.map(\.id))
            let removed = known.subtracting(incoming).sorted()
            for id in removed {
                try db.execute(sql: "DELETE FROM sensors WHERE id = ?", arguments: [id])
            }
            var position = (try Int.fetchOne(db, sql: "SELECT max(position) FROM sensors") ?? -1) + 1
            var added: [Int64] = []
            let upsert = try db.cachedStatement(sql: """
                INSERT INTO sensors (id, code, name, units, value_type, created_at, updated_at,
                                     latest_ts, latest_value, count, position, labels, retention_days, kind)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET
                    code = excluded.code, name = excluded.name, units = excluded.units,
                    value_type = excluded.value_type, created_at = excluded.created_at,
                    updated_at = excluded.updated_at, count = excluded.count,
                    latest_ts = excluded.latest_ts, latest_value = excluded.latest_value,
                    labels = excluded.labels, retention_days = excluded.retention_days, kind = excluded.kind
                """)
            for sensor in sensors.sorted(by: { $0.id < $1.id }) {
                let isNew = !known.contains(sensor.id)
                try upsert.execute(arguments: [
                    sensor.id, sensor.code, sensor.name, sensor.units, sensor.valueType.rawValue,
                    sensor.createdAt.milliseconds, sensor.updatedAt.milliseconds,
                    sensor.latest?.timestamp.milliseconds, sensor.latest?.value, sensor.count,
                    isNew ? position : 0, Self.labelsJSON(sensor.labels), sensor.retentionDays, sensor.kind.rawValue,
                ])
                if isNew {
                    added.append(sensor.id)
                    position += 1
                }
            }
            return SensorMerge(added: added, removed: removed)
        }
    }

    /// Forgets one sensor and its readings (the server answered 404 for it).
    public func removeSensor(id: Int64) throws {
        try pool.write { db in try db.execute(sql: "DELETE FROM sensors WHERE id = ?", arguments: [id]) }
    }

    /// Keeps the user's order: `ids` top first. Sensors not named keep their
    /// relative order after them (one added by a sync the UI has not seen yet).
    public func saveOrder(_ ids: [Int64]) throws {
        try pool.write { db in
            let current = try Int64.fetchAll(db, sql: "SELECT id FROM sensors ORDER BY position, id")
            let existing = Set(current)
            var named = Set<Int64>()
            let given = ids.filter { existing.contains($0) && named.insert($0).inserted }
            let order = given + current.filter { !named.contains($0) }
            let update = try db.cachedStatement(sql: "UPDATE sensors SET position = ? WHERE id = ?")
            for (position, id) in order.enumerated() {
                try update.execute(arguments: [position, id])
            }
        }
    }

    /// Every cached sensor in the user's order.
    public func sensors() throws -> [Sensor] {
        try pool.read { db in try Self.fetchSensors(db, sql: "ORDER BY position, id", arguments: []) }
    }

    /// Every cached sensor as the server last listed it (latest reading and
    /// count as listed, not moved on by live readings), in id order: what a
    /// sync works from when the server says the list is unchanged (304).
    public func listedSensors() throws -> [Sensor] {
        try pool.read { db in try Self.fetchSensors(db, sql: "ORDER BY id", arguments: [], asListed: true) }
    }

    /// The cached sensor with this code (for `sensei show CODE`), or nil.
    public func sensor(code: String) throws -> Sensor? {
        try pool.read { db in try Self.fetchSensors(db, sql: "WHERE code = ?", arguments: [code]).first }
    }

    public func sensor(id: Int64) throws -> Sensor? {
        try pool.read { db in try Self.fetchSensor(id: id, in: db) }
    }

    /// When the last sync completed; nil before the first.
    public func lastSync() throws -> Timestamp? {
        try pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT CAST(value AS INTEGER) FROM metadata WHERE key = 'last_sync'")
                .map(Timestamp.init(milliseconds:))
        }
    }

    public func setLastSync(_ time: Timestamp) throws {
        try pool.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO metadata (key, value) VALUES ('last_sync', ?)",
                           arguments: [String(time.milliseconds)])
        }
    }

    static func fetchSensor(id: Int64, in db: Database) throws -> Sensor? {
        try fetchSensors(db, sql: "WHERE id = ?", arguments: [id]).first
    }

    /// The cached row, with `latest` moved on to the newest cached reading
    /// when the readings sync got further than the sensor list did.
    static func fetchSensors(_ db: Database, sql clause: String, arguments: StatementArguments,
                             asListed: Bool = false) throws -> [Sensor] {
        let rows = try Row.fetchAll(db, sql: """
            SELECT id, code, name, units, value_type, created_at, updated_at, latest_ts, latest_value, count, labels,
                   retention_days, kind,
                   (SELECT ts FROM readings r WHERE r.sensor_id = s.id ORDER BY ts DESC LIMIT 1) AS newest_ts,
                   (SELECT value FROM readings r WHERE r.sensor_id = s.id ORDER BY ts DESC LIMIT 1) AS newest_value
            FROM sensors s \(clause)
            """, arguments: arguments)
        return rows.map { row in
            var latest: Reading?
            if let time: Int64 = row["latest_ts"], let value: Double = row["latest_value"] {
                latest = Reading(timestamp: Timestamp(milliseconds: time), value: value)
            }
            if !asListed, let time: Int64 = row["newest_ts"], let value: Double = row["newest_value"],
               time > latest?.timestamp.milliseconds ?? .min {
                latest = Reading(timestamp: Timestamp(milliseconds: time), value: value)
            }
            return Sensor(id: row["id"], code: row["code"], name: row["name"], units: row["units"],
                          valueType: ValueType(rawValue: row["value_type"]) ?? .float,
                          createdAt: Timestamp(milliseconds: row["created_at"]),
                          updatedAt: Timestamp(milliseconds: row["updated_at"]),
                          latest: latest, count: row["count"], retentionDays: row["retention_days"],
                          labels: labels(fromJSON: row["labels"]),
                          kind: SensorKind(rawValue: row["kind"]) ?? .gauge)
        }
    }

    static func labelsJSON(_ labels: [String: String]) -> String {
        var writer = JSONWriter()
        SensorLabels.write(labels, to: &writer)
        return writer.string
    }

    /// What `labelsJSON` wrote; a cache is only a cache: anything else is no labels.
    static func labels(fromJSON text: String) -> [String: String] {
        guard text != "{}", let object = (try? JSONParser.parse(Array(text.utf8)))?.objectValue else { return [:] }
        return object.compactMapValues(\.stringValue)
    }
}
