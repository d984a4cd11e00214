import GRDB

/// The cache's tables, versioned with `PRAGMA user_version`.
///
/// Times are milliseconds since the epoch, UTC, as on the server. Readings and
/// rollups are clustered (`WITHOUT ROWID`) on (sensor, time): a window of one
/// sensor is one contiguous read.
enum CacheSchema {
    static let version = 3

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
            labels TEXT NOT NULL DEFAULT '{}'
        );
        CREATE INDEX sensors_code ON sensors(code);
        CREATE TABLE readings (
            sensor_id INTEGER NOT NULL REFERENCES sensors(id) ON DELETE CASCADE,
            ts INTEGER NOT NULL,
            value REAL NOT NULL,
            PRIMARY KEY (sensor_id, ts)
        ) WITHOUT ROWID;
        -- Per sensor, level and granule (see RollupLevel): what a long chart reads
        -- instead of a million readings.
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
        CREATE TABLE metadata (
            key TEXT PRIMARY KEY NOT NULL,
            value TEXT NOT NULL
        ) WITHOUT ROWID;
        """

    /// What brings a file of version `key` to `key + 1`, keeping the user's
    /// order and the readings.
    static let upgrades: [Int: String] = [
        1: "ALTER TABLE sensors ADD COLUMN audited_at INTEGER",
        2: "ALTER TABLE sensors ADD COLUMN labels TEXT NOT NULL DEFAULT '{}'",
    ]

    /// Creates the tables in a new file and upgrades an older one. A file from
    /// a newer sensei is rebuilt: it is only a cache, and the next sync fills
    /// it again.
    static func apply(to pool: DatabasePool) throws {
        try pool.barrierWriteWithoutTransaction { db in
            let found = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
            guard found != version else { return }
            try db.inTransaction(.exclusive) {
                if found > 0 && found < version {
                    for step in found..<version {
                        guard let upgrade = upgrades[step] else { throw CacheSchemaError.noUpgrade(from: step) }
                        try db.execute(sql: upgrade)
                    }
                } else {
                    for table in ["rollups", "readings", "metadata", "sensors"] {
                        try db.execute(sql: "DROP TABLE IF EXISTS \(table)")
                    }
                    try db.execute(sql: sql)
                }
                try db.execute(sql: "PRAGMA user_version = \(version)")
                return .commit
            }
        }
    }
}

enum CacheSchemaError: Error, CustomStringConvertible {
    case noUpgrade(from: Int)

    var description: String {
        switch self {
        case .noUpgrade(let version): "no upgrade from cache version \(version)"
        }
    }
}
