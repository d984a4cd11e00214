import GRDB
import SenseiSQLite

/// The cache's tables, versioned with `PRAGMA user_version`.
///
/// Times are milliseconds since the epoch, UTC, as on the server. Readings and
/// rollups are clustered (`WITHOUT ROWID`) on (sensor, time): a window of one
/// sensor is one contiguous read.
enum CacheSchema {
    static let version = 6

    static let sql = """
        CREATE TABLE sensors (
            id INTEGER PRIMARY KEY,          -- the server's id
            code TEXT NOT NULL,
            name TEXT NOT NULL,
            units TEXT NOT NULL,
            value_type TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            latest_ts INTEGER,
            latest_value REAL,
            count INTEGER NOT NULL,
            position INTEGER NOT NULL,       -- the user's order, 0 at the top
            -- when the readings were last compared with the server's (Syncer)
            audited_at INTEGER,
            -- the server's labels as a JSON object (keys in byte order)
            labels TEXT NOT NULL DEFAULT '{}',
            -- where readings and minute rollups are complete (Coverage);
            -- NULL: from the first reading
            raw_from INTEGER,
            minute_from INTEGER,
            -- 0 while the history beyond the raw window is still being fetched
            backfilled INTEGER NOT NULL DEFAULT 1,
            -- the server's latest reading time and count when a sync last
            -- brought the sensor up to date: the same again means nothing to do
            synced_latest INTEGER,
            synced_count INTEGER,
            -- the server's retentionDays (NULL: forever)
            retention_days INTEGER,
            -- gauge or counter (SensorKind), as the server says
            kind TEXT NOT NULL DEFAULT 'gauge'
        );
        CREATE INDEX sensors_code ON sensors(code);
        CREATE TABLE readings (
            sensor_id INTEGER NOT NULL REFERENCES sensors(id) ON DELETE CASCADE,
            ts INTEGER NOT NULL,
            value REAL NOT NULL,
            PRIMARY KEY (sensor_id, ts)
        ) WITHOUT ROWID;
        -- Per sensor, level (0 minute, 1 hour: see RollupLevel) and granule: what a
        -- long chart reads instead of a million readings, and all that is kept of
        -- history beyond the raw window.
        CREATE TABLE rollups (
            sensor_id INTEGER NOT NULL REFERENCES sensors(id) ON DELETE CASCADE,
            level INTEGER NOT NULL,
            start INTEGER NOT NULL,
            count INTEGER NOT NULL,
            sum REAL NOT NULL,
            min REAL NOT NULL,
            min_ts INTEGER NOT NULL,
            max REAL NOT NULL,
            max_ts INTEGER NOT NULL,
            PRIMARY KEY (sensor_id, level, start)
        ) WITHOUT ROWID;
        -- The server's usage report (GET /sensors/<id>/usage) last fetched for
        -- a range of the detail in a zone, as its wire JSON: the bars draw
        -- from here, so they show offline. report NULL: the server has no
        -- usage route (older than v1.2).
        \(usageReportsTable)
        CREATE TABLE metadata (
            key TEXT PRIMARY KEY NOT NULL,
            value TEXT NOT NULL
        ) WITHOUT ROWID;
        """

    /// Version 6's table, as created new and by step 5 alike (a later change
    /// to it is a step of its own, never an edit here).
    static let usageReportsTable = """
        CREATE TABLE usage_reports (
            sensor_id INTEGER NOT NULL REFERENCES sensors(id) ON DELETE CASCADE,
            range TEXT NOT NULL,
            tz TEXT NOT NULL,
            fetched_at INTEGER NOT NULL,
            report TEXT,
            PRIMARY KEY (sensor_id, range, tz)
        ) WITHOUT ROWID;
        """

    /// A new file gets `sql`; an older one runs the steps from its version on,
    /// keeping the user's order and the readings. Step `n` is the old
    /// `upgrades[n]` (it takes `user_version` n to n + 1; see `SchemaMigrator`).
    static let migrator: SchemaMigrator = {
        var migrator = SchemaMigrator(version: version) { db in
            // A file from a newer sensei is rebuilt: it is only a cache.
            for table in ["usage_reports", "rollups", "readings", "metadata", "sensors"] {
                try db.execute(sql: "DROP TABLE IF EXISTS \(table)")
            }
            try db.execute(sql: sql)
        }
        migrator.registerStep(from: 1, sql: "ALTER TABLE sensors ADD COLUMN audited_at INTEGER")
        migrator.registerStep(from: 2, sql: "ALTER TABLE sensors ADD COLUMN labels TEXT NOT NULL DEFAULT '{}'")
        // Rollups were 5-minute granules and multiples of four; now minutes
        // and hours, as the server sends them. Refilled from the readings
        // (every reading was kept until then) once the file is current.
        migrator.registerStep(from: 3, sql: """
            ALTER TABLE sensors ADD COLUMN raw_from INTEGER;
            ALTER TABLE sensors ADD COLUMN minute_from INTEGER;
            ALTER TABLE sensors ADD COLUMN backfilled INTEGER NOT NULL DEFAULT 1;
            DELETE FROM rollups;
            """)
        migrator.registerStep(from: 4, sql: """
            ALTER TABLE sensors ADD COLUMN synced_latest INTEGER;
            ALTER TABLE sensors ADD COLUMN synced_count INTEGER;
            ALTER TABLE sensors ADD COLUMN retention_days INTEGER;
            """)
        // Energy (v1.2): the sensor's kind, and the usage reports the bars draw.
        migrator.registerStep(from: 5, sql: """
            ALTER TABLE sensors ADD COLUMN kind TEXT NOT NULL DEFAULT 'gauge';
            \(usageReportsTable)
            """)
        return migrator
    }()

    /// Creates the tables in a new file and upgrades an older one. A file from
    /// a newer sensei is rebuilt: it is only a cache, and the next sync fills
    /// it again. Returns the one line to tell the user when the file changed
    /// version, nil otherwise.
    static func apply(to pool: DatabasePool) throws -> String? {
        try pool.barrierWriteWithoutTransaction { db in
            let found = try migrator.foundVersion(in: db)
            guard found != version else { return nil }
            if found > 0 && found < version {
                try migrator.upgrade(db, from: found) { db in
                    if found <= 3 { try SensorCache.rebuildAllRollups(in: db) }
                }
                return "cache upgraded from version \(found) to \(version) in place; nothing cached was lost"
            }
            try migrator.create(in: db)
            return found > version ? "cache from a newer sensei (version \(found)) rebuilt" : nil
        }
    }
}
