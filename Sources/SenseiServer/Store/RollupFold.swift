import GRDB

/// Moves a sensor's rollup frontier (`sensors.rollups_until`) on: the
/// readings between the old frontier and the new one are aggregated into
/// minute rows, and those into their hours.
///
/// A write adds to the rollups only readings before the frontier (late ones,
/// rare). Readings at or after it are left to a fold, which the first write of
/// each new minute makes, up to the minute before that write's newest reading.
/// So a sensor's rollup rows change about once a minute, not with every
/// reading: a single-reading write dirties one b-tree page where it dirtied
/// three, and runs one statement where it ran three. Queries add the readings
/// after the frontier (a minute or two of them) from the readings themselves.
enum RollupFold {
    /// Where the frontier goes after a write whose newest reading is at
    /// `newest`, or nil when it stays at `until`: the start of the minute
    /// before `newest`'s, so a reading that comes a little late for the
    /// minute just over still lands after the frontier.
    static func target(after newest: Int64, from until: Int64?) -> Int64? {
        let target = RollupLevel.minute.start(of: newest) - RollupLevel.minute.width
        return target > (until ?? .min) ? target : nil
    }

    /// Rolls up the sensor's readings from `from` (nil: its first reading) up
    /// to, not including, `to`, a minute's first millisecond.
    ///
    /// No minute row exists yet at or after the old frontier (it is a minute
    /// boundary, and rows only hold readings before it), so each minute is
    /// written once; an hour may already hold the minutes before the frontier,
    /// and is merged into.
    static func fold(sensorID: Int64, from: Int64?, to: Int64, in db: Database) throws {
        let minutes = BoundStatement(try db.cachedStatement(sql: """
            INSERT INTO rollups_minute (sensor_id, start, count, sum, min, max)
            SELECT ?1, ts - ((ts % 60000) + 60000) % 60000 AS minute, count(*), sum(value), min(value), max(value)
            FROM readings WHERE sensor_id = ?1 AND ts >= ?2 AND ts < ?3
            GROUP BY minute
            ON CONFLICT DO UPDATE SET count = count + excluded.count, sum = sum + excluded.sum,
                min = min(min, excluded.min), max = max(max, excluded.max)
            """))
        let hours = BoundStatement(try db.cachedStatement(sql: """
            INSERT INTO rollups_hour (sensor_id, start, count, sum, min, max)
            SELECT ?1, start - ((start % 3600000) + 3600000) % 3600000 AS hour, sum(count), sum(sum), min(min), max(max)
            FROM rollups_minute WHERE sensor_id = ?1 AND start >= ?2 AND start < ?3
            GROUP BY hour
            ON CONFLICT DO UPDATE SET count = count + excluded.count, sum = sum + excluded.sum,
                min = min(min, excluded.min), max = max(max, excluded.max)
            """))
        for statement in [minutes, hours] {
            statement.bind(1, sensorID)
            statement.bind(2, from ?? .min)
            statement.bind(3, to)
            try statement.run()
        }
    }
}
