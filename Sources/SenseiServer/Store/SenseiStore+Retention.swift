import GRDB
import SenseiModels

/// What a retention sweep did.
public struct RetentionSweep: Sendable, Equatable {
    /// Readings deleted.
    public var deleted = 0
    /// Write transactions it took.
    public var batches = 0
    /// The longest a batch's work held the write lock (its commit and sync,
    /// shared with the writes grouped with it, come on top).
    public var longestBatch: Duration = .zero
}

/// One batch of a sweep.
struct RetentionBatch: Sendable {
    var deleted: Int
    /// Nothing older than the sensor's retention is left.
    var isLast: Bool
    var held: Duration
}

extension SenseiStore {
    static let millisecondsPerDay: Int64 = 86_400_000

    /// Deletes every reading older than its sensor's retention (`now` minus
    /// `retentionDays`), sensor by sensor, at most `batchSize` readings a
    /// transaction, so that a large backlog never holds the writer for long.
    /// `betweenBatches` runs after each batch, outside any transaction;
    /// returning false stops the sweep there (the server is stopping).
    ///
    /// Each batch goes through the group-commit writer like any other write,
    /// so it serialises with ingestion and moves `changeCount`.
    public func sweepRetention(now: Timestamp = .now(), batchSize: Int = 5_000,
                               betweenBatches: () throws -> Bool = { true }) throws -> RetentionSweep {
        precondition(batchSize >= 1, "a retention batch deletes at least one reading")
        return try RetentionSweep.run(over: try sensorsWithExpiredReadings(at: now),
                                      betweenBatches: betweenBatches) { sensorID in
            try groupCommit.write { db in
                try Self.deleteExpiredReadings(of: sensorID, at: now, limit: batchSize, in: db)
            }
        }
    }

    /// Sensors with a retention and a reading older than it: one index seek
    /// each, so a sweep with nothing to do writes nothing.
    func sensorsWithExpiredReadings(at now: Timestamp) throws -> [Int64] {
        try pool.read { db in
            try Int64.fetchAll(db, sql: """
                SELECT id FROM sensors s
                WHERE retention_days IS NOT NULL
                  AND (EXISTS (SELECT 1 FROM readings r WHERE r.sensor_id = s.id AND r.ts < ?1 - s.retention_days * ?2)
                       OR EXISTS (SELECT 1 FROM reading_blocks b
                                  WHERE b.sensor_id = s.id AND b.start < ?1 - s.retention_days * ?2))
                ORDER BY id
                """, arguments: [now.milliseconds, Self.millisecondsPerDay])
        }
    }

    /// Deletes the oldest `limit` expired readings of a sensor and keeps its
    /// count, latest reading and rollups as the remaining readings make them.
    ///
    /// The retention is read again in the transaction: a sensor deleted or set
    /// to keep its readings since the sweep began loses nothing more.
    static func deleteExpiredReadings(of sensorID: Int64, at now: Timestamp, limit: Int,
                                      in db: Database) throws -> RetentionBatch {
        let clock = ContinuousClock()
        let start = clock.now
        guard let row = try Row.fetchOne(db, sql: "SELECT retention_days, rollups_until FROM sensors WHERE id = ?",
                                         arguments: [sensorID]),
              let days = row["retention_days"] as Int64? else {
            return RetentionBatch(deleted: 0, isLast: true, held: clock.now - start)
        }
        let rollupsUntil: Int64? = row["rollups_until"]
        let cutoff = now.milliseconds - days * millisecondsPerDay
        // A packed hour the cutoff falls inside goes back to readings, to be
        // cut like any other; packed hours wholly before it go whole.
        try PackedHours.unpack(sensorID: sensorID, from: cutoff - 1, through: cutoff - 1, in: db)
        let blocksLast = try lastExpiredBlock(of: sensorID, before: cutoff, limit: limit, in: db)
        // The batch ends on a reading (or a packed hour's end): everything up
        // to it goes, readings that arrived since the last batch too, so the
        // rollups have one edge.
        let rowsLast = try Int64.fetchOne(db, sql: """
            SELECT ts FROM readings WHERE sensor_id = ? AND ts < ? ORDER BY ts LIMIT 1 OFFSET ?
            """, arguments: [sensorID, cutoff, limit - 1]) ?? cutoff - 1
        let last = min(rowsLast, blocksLast ?? cutoff - 1)
        try db.execute(sql: "DELETE FROM readings WHERE sensor_id = ? AND ts <= ?", arguments: [sensorID, last])
        var deleted = db.changesCount
        deleted += try Int.fetchOne(db, sql: """
            SELECT coalesce(sum(count), 0) FROM reading_blocks WHERE sensor_id = ? AND start + ? - 1 <= ?
            """, arguments: [sensorID, PackedHours.width, last]) ?? 0
        try db.execute(sql: "DELETE FROM reading_blocks WHERE sensor_id = ? AND start + ? - 1 <= ?",
                       arguments: [sensorID, PackedHours.width, last])
        try trimRollups(of: sensorID, through: last, in: db)
        // Readings after the rollup frontier were never rolled up. When some
        // of them went, the frontier moves past `last`'s minute, which
        // trimRollups has recomputed from what is left of it.
        let frontier: Int64? = last >= rollupsUntil ?? .min
            ? RollupLevel.minute.start(of: last) + RollupLevel.minute.width : nil
        // `latest` is the newest reading: if it went, they all did.
        try db.execute(sql: """
            UPDATE sensors SET
                reading_count = reading_count - ?1,
                latest_value = CASE WHEN latest_ts <= ?2 THEN NULL ELSE latest_value END,
                latest_ts = CASE WHEN latest_ts <= ?2 THEN NULL ELSE latest_ts END,
                rollups_until = coalesce(?4, rollups_until)
            WHERE id = ?3
            """, arguments: [deleted, last, sensorID, frontier])
        let more = try Bool.fetchOne(db, sql: """
            SELECT EXISTS (SELECT 1 FROM readings WHERE sensor_id = ?1 AND ts < ?2)
                OR EXISTS (SELECT 1 FROM reading_blocks WHERE sensor_id = ?1 AND start < ?2)
            """, arguments: [sensorID, cutoff]) ?? false
        return RetentionBatch(deleted: deleted, isLast: !more, held: clock.now - start)
    }

    /// The last millisecond of the packed hour by which the oldest expired
    /// blocks hold `limit` readings (or of the last expired one); nil when no
    /// packed hour ends before `cutoff`.
    private static func lastExpiredBlock(of sensorID: Int64, before cutoff: Int64, limit: Int,
                                         in db: Database) throws -> Int64? {
        let rows = try Row.fetchCursor(db, sql: """
            SELECT start, count FROM reading_blocks WHERE sensor_id = ? AND start + ? <= ? ORDER BY start
            """, arguments: [sensorID, PackedHours.width, cutoff])
        var total = 0
        var last: Int64?
        while let row = try rows.next() {
            last = (row["start"] as Int64) + PackedHours.width - 1
            total += row["count"] as Int
            if total >= limit { break }
        }
        return last
    }

    /// Makes the rollups of a sensor whose readings up to `last` (inclusive)
    /// are gone agree with the readings again: rows that end by `last` are
    /// deleted, and the one row per level that `last` falls inside is
    /// recomputed (a min or max cannot be subtracted). Minutes first: the
    /// hour is recomputed from them.
    private static func trimRollups(of sensorID: Int64, through last: Int64, in db: Database) throws {
        for level in [RollupLevel.minute, .hour] {
            let edge = level.start(of: last)
            try db.execute(sql: "DELETE FROM \(level.table) WHERE sensor_id = ? AND start <= ?",
                           arguments: [sensorID, edge])
            let source = level == .minute
                ? "count(*), sum(value), min(value), max(value) FROM readings WHERE sensor_id = ?1 AND ts"
                : "sum(count), sum(sum), min(min), max(max) FROM rollups_minute WHERE sensor_id = ?1 AND start"
            // GROUP BY: no row at all for a minute (hour) left empty.
            try db.execute(sql: """
                INSERT INTO \(level.table) (sensor_id, start, count, sum, min, max)
                SELECT ?1, ?2, \(source) BETWEEN ?2 AND ?3 GROUP BY sensor_id
                """, arguments: [sensorID, edge, edge + level.width - 1])
        }
    }
}
