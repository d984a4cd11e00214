import Foundation
import GRDB
import SenseiTestSupport
import Testing
import SenseiModels
@testable import SenseiServer

/// Databases of earlier schema versions are upgraded in place when the server
/// opens them, keeping every sensor, reading, rollup and token.
@Suite("Schema migration")
struct SchemaMigrationTests {
    /// schema.sql as version 1 shipped it (`git show ddcf869:schema.sql`), byte for byte.
    static let version1 = """
        -- Sensei server schema, version 1.
        -- The server applies this file, byte for byte, to a new database. Times are
        -- INTEGER milliseconds since the Unix epoch, UTC.

        -- AUTOINCREMENT: a deleted sensor's id is never given to another, so a
        -- dashboard's cache keyed by id cannot mix two sensors up.
        CREATE TABLE sensors (
            id            INTEGER PRIMARY KEY AUTOINCREMENT,
            code          TEXT    NOT NULL UNIQUE
                                  CHECK (length(code) BETWEEN 1 AND 50
                                         AND code NOT GLOB '*[^A-Za-z0-9_-]*'),
            name          TEXT    NOT NULL,
            units         TEXT    NOT NULL DEFAULT '',
            value_type    TEXT    NOT NULL DEFAULT 'float'
                                  CHECK (value_type IN ('float', 'int', 'bool')),
            created_at    INTEGER NOT NULL,
            updated_at    INTEGER NOT NULL,
            -- Kept up to date by the store on every write, so that listing sensors
            -- never scans their readings.
            reading_count INTEGER NOT NULL DEFAULT 0,
            latest_ts     INTEGER,
            latest_value  REAL
        );

        -- Clustered on (sensor, time): one sensor's range is one contiguous read.
        CREATE TABLE readings (
            sensor_id INTEGER NOT NULL REFERENCES sensors(id) ON DELETE CASCADE,
            ts        INTEGER NOT NULL,
            value     REAL    NOT NULL,
            PRIMARY KEY (sensor_id, ts)
        ) WITHOUT ROWID;

        -- Rollups: count, sum, min and max of a sensor's readings per minute and per
        -- hour, kept up to date by the store on every write, so that a chart of a long
        -- range reads hours instead of readings. `start` is the first millisecond of
        -- the minute (hour), a multiple of 60,000 (3,600,000).
        CREATE TABLE rollups_minute (
            sensor_id INTEGER NOT NULL REFERENCES sensors(id) ON DELETE CASCADE,
            start     INTEGER NOT NULL,
            count     INTEGER NOT NULL,
            sum       REAL    NOT NULL,
            min       REAL    NOT NULL,
            max       REAL    NOT NULL,
            PRIMARY KEY (sensor_id, start)
        ) WITHOUT ROWID;

        CREATE TABLE rollups_hour (
            sensor_id INTEGER NOT NULL REFERENCES sensors(id) ON DELETE CASCADE,
            start     INTEGER NOT NULL,
            count     INTEGER NOT NULL,
            sum       REAL    NOT NULL,
            min       REAL    NOT NULL,
            max       REAL    NOT NULL,
            PRIMARY KEY (sensor_id, start)
        ) WITHOUT ROWID;

        -- Bearer tokens, stored as SHA-256 digests: a stolen database holds no token.
        CREATE TABLE tokens (
            id           INTEGER PRIMARY KEY,
            name         TEXT    NOT NULL UNIQUE,
            digest       BLOB    NOT NULL UNIQUE,
            scope        TEXT    NOT NULL CHECK (scope IN ('read', 'write', 'admin')),
            created_at   INTEGER NOT NULL,
            last_used_at INTEGER
        );

        PRAGMA user_version = 1;
        """ + "\n"

    static let day: Int64 = 86_400_000
    static let start: Int64 = 1_736_424_012_345  // 2025-01-09T12:00:12.345Z

    /// A version 1 database as a v1 server leaves it: two sensors with
    /// readings, count, latest and rollups, one without, and a token.
    static func makeVersion1(at path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: version1)
            try db.execute(sql: """
                INSERT INTO sensors (code, name, units, value_type, created_at, updated_at) VALUES
                    ('temperature_ext', 'External', '°C', 'float', ?1, ?1),
                    ('door', 'Door', '', 'bool', ?1, ?1),
                    ('unused', 'Unused', 'lx', 'int', ?1, ?1)
                """, arguments: [start])
            for index in 0..<3_000 {
                let ts = start + Int64(index) * 61_001
                try db.execute(sql: "INSERT INTO readings VALUES (1, ?, ?), (2, ?, ?)",
                               arguments: [ts, 20 + Double(index % 97) / 4, ts + 7, Double(index % 2)])
            }
            try db.execute(sql: """
                UPDATE sensors SET
                    reading_count = (SELECT count(*) FROM readings WHERE sensor_id = sensors.id),
                    latest_ts = (SELECT max(ts) FROM readings WHERE sensor_id = sensors.id),
                    latest_value = (SELECT value FROM readings WHERE sensor_id = sensors.id ORDER BY ts DESC LIMIT 1);
                INSERT INTO rollups_minute
                    SELECT sensor_id, ts - ts % 60000, count(*), sum(value), min(value), max(value)
                    FROM readings GROUP BY sensor_id, ts - ts % 60000;
                INSERT INTO rollups_hour
                    SELECT sensor_id, start - start % 3600000, sum(count), sum(sum), min(min), max(max)
                    FROM rollups_minute GROUP BY sensor_id, start - start % 3600000;
                """)
            try db.execute(sql: "INSERT INTO tokens (name, digest, scope, created_at) VALUES ('esp32', ?, 'write', ?)",
                           arguments: [Data(TokenSecret.digest(of: "sensei_device-secret")), start])
        }
        try queue.close()
    }

    @Test func version1IsUpgradedInPlaceKeepingEverything() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/sensei.sqlite"
            try Self.makeVersion1(at: path)
            let before = try Self.snapshot(path)
            #expect(before.version == 1)
            #expect(!before.sensorColumns.contains("retention_days"))

            let store = try SenseiStore(path: path)
            let after = try Self.snapshot(path)
            #expect(after.version == SenseiStore.schemaVersion)
            #expect(after.sensorColumns == before.sensorColumns
                     + ["retention_days", "rollups_until", "name_from_ingest", "units_from_ingest", "kind",
                        "kind_from_ingest"])
            #expect(after.data == before.data)
            // Version 2 rolled every reading up: the frontier goes to the
            // minute after each sensor's newest reading (none for `unused`).
            let frontiers = try store.pool.read { db in
                try Int64?.fetchAll(db, sql: "SELECT rollups_until FROM sensors ORDER BY id")
            }
            #expect(frontiers == [1_736_607_000_000, 1_736_607_000_000, nil])
            #expect(try store.integrityCheck() == "ok")

            let sensors = try store.sensors()
            #expect(sensors.map(\.code) == ["temperature_ext", "door", "unused"])
            #expect(sensors.map(\.count) == [3_000, 3_000, 0])
            #expect(sensors.allSatisfy { $0.retentionDays == nil })
            #expect(sensors[0].latest == Reading(timestamp: Timestamp(milliseconds: Self.start + 2_999 * 61_001),
                                                 value: 20 + Double(2_999 % 97) / 4))
            #expect(try store.token(digest: TokenSecret.digest(of: "sensei_device-secret"))?.scope == .write)
            try expectRollupsMatchReadings(store, "migrated")
            let buckets = try store.buckets(of: .id(1), after: Timestamp(milliseconds: Self.start),
                                            before: Timestamp(milliseconds: Self.start + 3 * Self.day), count: 200).1
            let raw = try rawBuckets(store, sensorID: 1, after: Self.start, before: Self.start + 3 * Self.day, count: 200)
            expectSameBuckets(buckets, raw, "migrated buckets")

            // The new column works: retention set, swept, and the rest as before.
            _ = try store.updateSensor(.id(1), name: nil, units: nil, valueType: nil, retentionDays: 1)
            let sweep = try store.sweepRetention(now: Timestamp(milliseconds: Self.start + 2 * Self.day))
            #expect(sweep.deleted == Int((Self.day - 1) / 61_001) + 1)
            try expectRollupsMatchReadings(store, "migrated, then swept")
            try store.insertReadings([ReadingInput(timestamp: nil, value: 1)], into: .code("new"), createIfMissing: true)

            // Labels and series work on the migrated file; sensors from before have none.
            #expect(sensors.allSatisfy { $0.labels.isEmpty })
            _ = try store.updateSensor(.id(2), name: nil, units: nil, valueType: nil, labels: ["room": "hall"])
            let series = Series(identity: SeriesIdentity(source: "mqtt", parts: ["porch/temp", ""]), preferredCode: "porch_temp")
            try store.ingest([SeriesPoint(series: series, value: 3)])
            try store.close()

            // Opening it again finds the current version and changes nothing.
            let reopened = try SenseiStore(path: path)
            #expect(try reopened.sensors().map(\.retentionDays) == [1, nil, nil, nil, nil])
            #expect(try reopened.sensors(labeled: [("room", "hall")]).map(\.code) == ["door"])
            #expect(try reopened.sensors(labeled: [("source", "mqtt")]).map(\.code) == ["porch_temp"])
            try reopened.close()
            #expect(try Self.snapshot(path).version == SenseiStore.schemaVersion)
        }
    }

    /// A migrated database has the columns, types, defaults, keys and
    /// constraints of a new one; only the CREATE text SQLite keeps differs.
    @Test func upgradedDatabaseMatchesANewOne() async throws {
        try await withTemporaryDirectory { directory in
            try Self.makeVersion1(at: directory + "/old.sqlite")
            try SenseiStore(path: directory + "/old.sqlite").close()
            try SenseiStore(path: directory + "/new.sqlite").close()
            let old = try Self.structure(directory + "/old.sqlite")
            let new = try Self.structure(directory + "/new.sqlite")
            #expect(old == new)
            #expect(old.contains { $0.contains("sensors.retention_days INTEGER null=1 default=nil pk=0") })
            #expect(old.contains { $0.contains("sensors.rollups_until INTEGER null=1 default=nil pk=0") })
            #expect(old.contains { $0.contains("sensors.name_from_ingest INTEGER null=0 default=0 pk=0") })
            // Version 8: the kind, a gauge unless said otherwise.
            #expect(old.contains { $0.contains("sensors.kind TEXT null=0 default='gauge' pk=0") })
            #expect(old.contains("sensor_labels_by_pair 0 c") && old.contains("series.identity TEXT null=0 default=nil pk=1"))
            // Version 6: alert rules (gone with their sensor) and the outbox.
            #expect(old.contains("alert_rules.state TEXT null=0 default='ok' pk=0"))
            #expect(old.contains("alert_rules_by_sensor 0 c"))
            #expect(old.contains("alert_outbox.payload TEXT null=0 default=nil pk=0"))
            // The CHECK came along: a zero retention is refused by either.
            for name in ["old", "new"] {
                let queue = try DatabaseQueue(path: directory + "/\(name).sqlite")
                #expect(throws: DatabaseError.self, "\(name)") {
                    try queue.write { db in
                        try db.execute(sql: """
                            INSERT INTO sensors (code, name, created_at, updated_at, retention_days) VALUES ('z', 'Z', 0, 0, 0)
                            """)
                    }
                }
                #expect(throws: DatabaseError.self, "\(name)") {
                    try queue.write { db in
                        try db.execute(sql: "INSERT INTO sensors (code, name, created_at, updated_at, kind) VALUES ('z', 'Z', 0, 0, 'meter')")
                    }
                }
                try queue.close()
            }
        }
    }

    /// The upgrade is one transaction: when it fails, the file is left as it
    /// was, at version 1, and the server refuses to start rather than run on it.
    @Test func failedUpgradeLeavesVersion1Untouched() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/sensei.sqlite"
            try Self.makeVersion1(at: path)
            // A column of that name already there makes the ALTER TABLE fail.
            let queue = try DatabaseQueue(path: path)
            try queue.write { db in try db.execute(sql: "ALTER TABLE sensors ADD COLUMN retention_days TEXT") }
            try queue.close()
            let before = try Self.snapshot(path)
            #expect(throws: DatabaseError.self) { try SenseiStore(path: path) }
            let after = try Self.snapshot(path)
            #expect(after.version == 1)
            #expect(after.data == before.data && after.sensorColumns == before.sensorColumns)
        }
    }

    private struct Snapshot {
        var version: Int
        var sensorColumns: [String]
        /// Every row of every table, as text.
        var data: [String]
    }

    private static func snapshot(_ path: String) throws -> Snapshot {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            var data: [String] = []
            for table in ["sensors", "readings", "rollups_minute", "rollups_hour", "tokens"] {
                let columns = try db.columns(in: table).map(\.name).filter {
                    !["retention_days", "rollups_until", "name_from_ingest", "units_from_ingest", "kind",
                      "kind_from_ingest"].contains($0)
                }
                let rows = try Row.fetchAll(db, sql: "SELECT \(columns.joined(separator: ", ")) FROM \(table)")
                data += rows.map { "\(table): \($0)" }
            }
            return Snapshot(version: try Int.fetchOne(db, sql: "PRAGMA user_version") ?? -1,
                            sensorColumns: try db.columns(in: "sensors").map(\.name), data: data)
        }
    }

    /// Tables, columns (in order, with type, nullability, default and key),
    /// indexes and the user version.
    private static func structure(_ path: String) throws -> [String] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            var lines = ["user_version \(try Int.fetchOne(db, sql: "PRAGMA user_version") ?? -1)"]
            let tables = try String.fetchAll(db, sql: """
                SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name
                """)
            for table in tables {
                for column in try Row.fetchAll(db, sql: "PRAGMA table_xinfo(\(table))") {
                    lines.append("\(table).\(column["name"] as String) \(column["type"] as String) "
                                 + "null=\(1 - (column["notnull"] as Int)) "
                                 + "default=\((column["dflt_value"] as String?) ?? "nil") pk=\(column["pk"] as Int)")
                }
                lines += try String.fetchAll(db, sql: """
                    SELECT name || ' ' || "unique" || ' ' || origin FROM pragma_index_list(?) ORDER BY name
                    """, arguments: [table])
                lines += try String.fetchAll(db, sql: """
                    SELECT "table" || '.' || "from" || ' -> ' || "to" || ' ' || on_delete FROM pragma_foreign_key_list(?)
                    """, arguments: [table])
            }
            return lines
        }
    }
}
