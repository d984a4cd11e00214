import GRDB
import SenseiModels

/// The tiers of one sensor's cache: readings for the raw window, the
/// server's minute aggregates for the middle window, hour aggregates for all
/// time (see `Coverage`), and how the windows move on.
extension SensorCache {
    /// Whether the cache holds nothing of the sensor at any level: the first
    /// sync of it fetches tiers, not its whole history.
    public func holdsNothing(sensorId: Int64) throws -> Bool {
        try pool.read { db in
            try Bool.fetchOne(db, sql: """
                SELECT NOT EXISTS (SELECT 1 FROM readings WHERE sensor_id = ?1)
                   AND NOT EXISTS (SELECT 1 FROM rollups WHERE sensor_id = ?1)
                """, arguments: [sensorId]) ?? true
        }
    }

    /// Starts a sensor the cache holds nothing of: readings will be kept from
    /// `rawFrom`, minutes from `minuteFrom` (both whole hours), and the
    /// history before them is still to be fetched (`backfilled` 0).
    public func startTiers(sensorId: Int64, rawFrom: Timestamp, minuteFrom: Timestamp) throws {
        try startTiers(sensorIds: [sensorId], rawFrom: rawFrom, minuteFrom: minuteFrom)
    }

    /// `startTiers` for several sensors (a bulk first sync) the cache holds nothing of. One transaction.
    public func startTiers(sensorIds: [Int64], rawFrom: Timestamp, minuteFrom: Timestamp) throws {
        try pool.write { db in
            let update = try db.cachedStatement(sql: """
                UPDATE sensors SET raw_from = ?, minute_from = ?, backfilled = 0 WHERE id = ?
                """)
            for id in sensorIds {
                try update.execute(arguments: [rawFrom.milliseconds, min(minuteFrom, rawFrom).milliseconds, id])
            }
        }
    }

    /// Marks the sensor's readings as its whole history (`Coverage.everything`).
    public func coverEverything(sensorId: Int64) throws {
        try pool.write { db in
            try db.execute(sql: "UPDATE sensors SET raw_from = NULL, minute_from = NULL WHERE id = ?",
                           arguments: [sensorId])
        }
    }

    public func isBackfilled(sensorId: Int64) throws -> Bool {
        try pool.read { db in
            try Bool.fetchOne(db, sql: "SELECT backfilled FROM sensors WHERE id = ?", arguments: [sensorId]) ?? true
        }
    }

    public func setBackfilled(sensorId: Int64) throws {
        try pool.write { db in
            try db.execute(sql: "UPDATE sensors SET backfilled = 1 WHERE id = ?", arguments: [sensorId])
        }
    }

    /// The start of the newest cached row of `level` that starts in
    /// [from, before): where a backfill cut short goes on.
    func newestRollup(sensorId: Int64, level: RollupLevel, from: Int64, before: Int64) throws -> Int64? {
        try pool.read { db in
            try Int64.fetchOne(db, sql: """
                SELECT start FROM rollups WHERE sensor_id = ? AND level = ? AND start >= ? AND start < ?
                ORDER BY start DESC LIMIT 1
                """, arguments: [sensorId, level, from, before])
        }
    }

    /// Makes the cached rows of `level` starting in [from, through] exactly
    /// `rows` (all the server has there), and the hours above new minutes
    /// follow them; one transaction. Returns the rows stored.
    @discardableResult
    public func replaceAggregates(sensorId: Int64, level: RollupLevel, from: Int64, through: Int64,
                                  with rows: [SpanAggregate]) throws -> Int {
        guard from <= through else { return 0 }
        return try pool.write { db in
            try db.execute(sql: "DELETE FROM rollups WHERE sensor_id = ? AND level = ? AND start >= ? AND start <= ?",
                           arguments: [sensorId, level, from, through])
            let insert = try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO rollups (sensor_id, level, start, count, sum, min, min_ts, max, max_ts)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            var stored = 0
            for row in rows where (from...through).contains(row.start.milliseconds) {
                try insert.execute(arguments: [sensorId, level, row.start.milliseconds, row.count, row.sum,
                                               row.min, row.minAt.milliseconds, row.max, row.maxAt.milliseconds])
                stored += 1
            }
            if level == .minute {
                try Self.rebuildRollups(sensorId: sensorId, from: from, through: through,
                                        startingAt: .hour, in: db)
            }
            return stored
        }
    }

    /// Moves the raw and minute windows on to `rawFrom` and `minuteFrom`
    /// (whole hours; never back): readings before the raw window are
    /// dropped, their minutes and hours stay; minutes before the minute
    /// window are dropped, their hours stay. Returns the readings dropped.
    @discardableResult
    public func ageTiers(sensorId: Int64, rawFrom: Timestamp, minuteFrom: Timestamp) throws -> Int {
        try pool.write { db in
            let current = try Coverage.read(sensorId: sensorId, in: db)
            // A cache holding the whole history raw keeps doing so until a
            // reading is old enough to age: nothing before the window means
            // nothing to fetch or audit as aggregates there.
            if current.rawFrom == nil, try Int64.fetchOne(db, sql: """
                SELECT ts FROM readings WHERE sensor_id = ? AND ts < ? LIMIT 1
                """, arguments: [sensorId, rawFrom.milliseconds]) == nil { return 0 }
            let raw = max(rawFrom.milliseconds, current.rawFrom ?? .min)
            let minute = min(max(minuteFrom.milliseconds, current.minuteFrom ?? .min), raw)
            guard raw != current.rawFrom || minute != current.minuteFrom else { return 0 }
            try db.execute(sql: "DELETE FROM readings WHERE sensor_id = ? AND ts < ?", arguments: [sensorId, raw])
            let dropped = db.changesCount
            try db.execute(sql: "DELETE FROM rollups WHERE sensor_id = ? AND level = ? AND start < ?",
                           arguments: [sensorId, RollupLevel.minute, minute])
            try db.execute(sql: "UPDATE sensors SET raw_from = ?, minute_from = ? WHERE id = ?",
                           arguments: [raw, minute, sensorId])
            return dropped
        }
    }
}
