import SenseiModels
import SenseiSQLite

extension SenseiStore {
    /// A new file runs schema.sql (which sets `user_version` itself); a file
    /// an earlier server made runs the steps from its version on. Step `n`
    /// is the old `migrations[n]`: it takes `user_version` n to n + 1, so that
    /// the file ends as schema.sql makes a new one (columns, types,
    /// constraints and order; only the text SQLite keeps for a table
    /// differs). A step repeats the part of schema.sql it adds, as it was
    /// when it shipped, and never changes after: schema.sql may move on.
    static let migrator: SchemaMigrator = {
        var migrator = SchemaMigrator(version: schemaVersion) { db in try db.execute(sql: schemaSQL) }
        migrator.registerStep(from: 1, sql: "ALTER TABLE sensors ADD COLUMN retention_days INTEGER CHECK (retention_days > 0)")
        // Version 2 rolled every reading up as it came: its rollups hold them
        // all, up to the minute after the newest.
        migrator.registerStep(from: 2, sql: """
            ALTER TABLE sensors ADD COLUMN rollups_until INTEGER;
            UPDATE sensors SET rollups_until = latest_ts - ((latest_ts % 60000) + 60000) % 60000 + 60000
            WHERE latest_ts IS NOT NULL;
            """)
        // Packed hours start empty: the compactor packs the old readings
        // afterwards, hour by hour, each in a transaction of its own.
        migrator.registerStep(from: 3, sql: """
            CREATE TABLE reading_blocks (
                sensor_id INTEGER NOT NULL REFERENCES sensors(id) ON DELETE CASCADE,
                start     INTEGER NOT NULL,
                count     INTEGER NOT NULL,
                data      BLOB    NOT NULL,
                PRIMARY KEY (sensor_id, start)
            );
            """)
        // Labels and the series of ingest paths.
        migrator.registerStep(from: 4, sql: """
            ALTER TABLE sensors ADD COLUMN name_from_ingest INTEGER NOT NULL DEFAULT 0 CHECK (name_from_ingest IN (0, 1));
            ALTER TABLE sensors ADD COLUMN units_from_ingest INTEGER NOT NULL DEFAULT 0 CHECK (units_from_ingest IN (0, 1));
            CREATE TABLE sensor_labels (
                sensor_id INTEGER NOT NULL REFERENCES sensors(id) ON DELETE CASCADE,
                key       TEXT    NOT NULL,
                value     TEXT    NOT NULL,
                PRIMARY KEY (sensor_id, key)
            ) WITHOUT ROWID;
            CREATE INDEX sensor_labels_by_pair ON sensor_labels (key, value);
            CREATE TABLE series (
                identity  TEXT    NOT NULL PRIMARY KEY,
                sensor_id INTEGER NOT NULL REFERENCES sensors(id) ON DELETE CASCADE
            ) WITHOUT ROWID;
            CREATE INDEX series_by_sensor ON series (sensor_id);
            """)
        // Alert rules and their notification outbox.
        migrator.registerStep(from: 5, sql: """
            CREATE TABLE alert_rules (
                id             INTEGER PRIMARY KEY AUTOINCREMENT,
                name           TEXT    NOT NULL,
                sensor_id      INTEGER NOT NULL REFERENCES sensors(id) ON DELETE CASCADE,
                condition      TEXT    NOT NULL CHECK (condition IN ('above', 'below', 'silent')),
                threshold      REAL,
                for_seconds    INTEGER NOT NULL DEFAULT 0 CHECK (for_seconds >= 0),
                hysteresis     REAL    NOT NULL DEFAULT 0 CHECK (hysteresis >= 0),
                repeat_seconds INTEGER CHECK (repeat_seconds > 0),
                notify         TEXT    NOT NULL,
                state          TEXT    NOT NULL DEFAULT 'ok' CHECK (state IN ('ok', 'pending', 'firing')),
                since          INTEGER NOT NULL,
                value          REAL,
                judged_ts      INTEGER,
                notified_at    INTEGER,
                created_at     INTEGER NOT NULL
            );
            CREATE INDEX alert_rules_by_sensor ON alert_rules (sensor_id);
            CREATE TABLE alert_outbox (
                id              INTEGER PRIMARY KEY AUTOINCREMENT,
                rule_id         INTEGER NOT NULL,
                url             TEXT    NOT NULL,
                payload         TEXT    NOT NULL,
                attempts        INTEGER NOT NULL DEFAULT 0,
                next_attempt_at INTEGER NOT NULL,
                last_error      TEXT,
                failed_at       INTEGER,
                created_at      INTEGER NOT NULL
            );
            """)
        // The database names InfluxDB clients used, for SHOW DATABASES.
        migrator.registerStep(from: 6, sql: """
            CREATE TABLE influx_databases (
                name TEXT NOT NULL PRIMARY KEY
            ) WITHOUT ROWID;
            """)
        // A sensor's kind. Every sensor so far was a gauge; those an ingest
        // path made (the ones with a series) let its later word set the kind.
        migrator.registerStep(from: 7, sql: """
            ALTER TABLE sensors ADD COLUMN kind TEXT NOT NULL DEFAULT 'gauge' CHECK (kind IN ('gauge', 'counter'));
            ALTER TABLE sensors ADD COLUMN kind_from_ingest INTEGER NOT NULL DEFAULT 0 CHECK (kind_from_ingest IN (0, 1));
            UPDATE sensors SET kind_from_ingest = 1 WHERE id IN (SELECT sensor_id FROM series);
            """)
        // Each packed hour's usage summary, filled here for the blocks already
        // packed (decoded one by one; bench/usage.sh times it for a year of
        // 30-second readings). The summary is the contract's rules
        // (docs/energy.md), which do not change.
        migrator.registerStep(from: 8) { db in
            try db.execute(sql: """
                ALTER TABLE reading_blocks ADD COLUMN first_ts INTEGER;
                ALTER TABLE reading_blocks ADD COLUMN first_value REAL;
                ALTER TABLE reading_blocks ADD COLUMN last_ts INTEGER;
                ALTER TABLE reading_blocks ADD COLUMN last_value REAL;
                ALTER TABLE reading_blocks ADD COLUMN integral REAL;
                ALTER TABLE reading_blocks ADD COLUMN longest_gap INTEGER;
                ALTER TABLE reading_blocks ADD COLUMN increase REAL;
                """)
            try PackedHours.fillMissingSummaries(in: db)
        }
        // Alert rules on usage: SQLite cannot
        // change a CHECK, so the table is rebuilt with the new condition
        // and the calendar columns, its AUTOINCREMENT sequence carried over
        // (renamed with it) so no deleted rule's id comes back.
        migrator.registerStep(from: 9, sql: """
            CREATE TABLE alert_rules_v10 (
                id             INTEGER PRIMARY KEY AUTOINCREMENT,
                name           TEXT    NOT NULL,
                sensor_id      INTEGER NOT NULL REFERENCES sensors(id) ON DELETE CASCADE,
                condition      TEXT    NOT NULL CHECK (condition IN ('above', 'below', 'silent', 'usage_above')),
                threshold      REAL,
                for_seconds    INTEGER NOT NULL DEFAULT 0 CHECK (for_seconds >= 0),
                hysteresis     REAL    NOT NULL DEFAULT 0 CHECK (hysteresis >= 0),
                repeat_seconds INTEGER CHECK (repeat_seconds > 0),
                notify         TEXT    NOT NULL,
                state          TEXT    NOT NULL DEFAULT 'ok' CHECK (state IN ('ok', 'pending', 'firing')),
                since          INTEGER NOT NULL,
                value          REAL,
                judged_ts      INTEGER,
                notified_at    INTEGER,
                created_at     INTEGER NOT NULL,
                interval       TEXT    CHECK (interval IN ('hour', 'day', 'week', 'month')),
                tz             TEXT
            );
            INSERT INTO alert_rules_v10 (id, name, sensor_id, condition, threshold, for_seconds, hysteresis,
                repeat_seconds, notify, state, since, value, judged_ts, notified_at, created_at)
            SELECT id, name, sensor_id, condition, threshold, for_seconds, hysteresis, repeat_seconds, notify,
                state, since, value, judged_ts, notified_at, created_at FROM alert_rules;
            DELETE FROM sqlite_sequence WHERE name = 'alert_rules_v10';
            UPDATE sqlite_sequence SET name = 'alert_rules_v10' WHERE name = 'alert_rules';
            DROP TABLE alert_rules;
            ALTER TABLE alert_rules_v10 RENAME TO alert_rules;
            CREATE INDEX alert_rules_by_sensor ON alert_rules (sensor_id);
            """)
        return migrator
    }()
}
