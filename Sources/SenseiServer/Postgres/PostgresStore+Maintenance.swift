import SenseiPostgres
import SenseiModels

/// Compaction, retention, size and closing (`MaintenanceStore`).
///
/// Each batch is a transaction of its own that first locks the sensor's row
/// (`FOR NO KEY UPDATE`, as every write of readings does), so a batch and a
/// write of the same sensor take turns, on any node. Several nodes on one
/// database will run the passes on one node at a time: the maintenance timer
/// is where that lease (an advisory lock) belongs, around a whole pass.
extension PostgresStore: MaintenanceStore {
    /// Packs every sensor's hours that ended more than a day ago into
    /// `reading_blocks`, as SQLite's `compact` does, about `batchReadings`
    /// readings a transaction. PostgreSQL gives deleted rows' space back by
    /// itself (autovacuum): `freedPages` stays 0.
    func runCompactionPass(now: Timestamp, betweenBatches: () throws -> Bool) throws -> CompactionPass {
        try compact(now: now, betweenBatches: betweenBatches)
    }

    func compact(now: Timestamp = .now(), batchReadings: Int = 5_000,
                 maxHourReadings: Int = SenseiStore.maxPackedHourReadings,
                 betweenBatches: () throws -> Bool = { true }) throws -> CompactionPass {
        let limit = PackedHours.start(of: now.milliseconds - SenseiStore.packAge)
        let sensors = try read { session in
            try session.rows("""
                SELECT id FROM sensors s
                WHERE EXISTS (SELECT 1 FROM readings r WHERE r.sensor_id = s.id AND r.ts < \(limit))
                ORDER BY id
                """).map { try $0.decode(Int64.self) }
        }
        return try CompactionPass.run(over: sensors, betweenBatches: betweenBatches) { sensorID, from in
            try write { session in
                try Self.packOldHours(of: sensorID, from: from, before: limit, readings: batchReadings,
                                      maxHourReadings: maxHourReadings, in: session)
            }
        }
    }

    /// Packs the sensor's oldest unpacked hours from `from` and before
    /// `limit` until about `budget` readings are packed; an hour of more than
    /// `maxHourReadings` is passed over, and counts as that many.
    private static func packOldHours(of sensorID: Int64, from: Int64, before limit: Int64, readings budget: Int,
                                     maxHourReadings: Int, in session: PostgresSession) throws -> CompactionBatch {
        var batch = CompactionBatch(next: from)
        guard try lockSensor(sensorID, in: session) else {
            batch.isLast = true // deleted since the pass began
            return batch
        }
        try batch.packHours(budget: budget, maxHourReadings: maxHourReadings) { from in
            try session.row("""
                SELECT ts FROM readings WHERE sensor_id = \(sensorID) AND ts >= \(from) AND ts < \(limit)
                ORDER BY ts LIMIT 1
                """)?.decode(Int64.self)
        } pack: { hour in
            try PostgresPackedHours.pack(sensorID: sensorID, hour: hour, atMost: maxHourReadings, in: session)
        }
        return batch
    }

    /// Locks a sensor's row to the commit; false when there is no such sensor.
    private static func lockSensor(_ sensorID: Int64, in session: PostgresSession) throws -> Bool {
        try session.row("SELECT 1 FROM sensors WHERE id = \(sensorID) FOR NO KEY UPDATE") != nil
    }

    /// Deletes every reading (row or packed hour) older than its sensor's
    /// retention, as SQLite's `sweepRetention` does, at most `batchSize` a
    /// transaction.
    func runRetentionSweep(now: Timestamp, betweenBatches: () throws -> Bool) throws -> RetentionSweep {
        try sweepRetention(now: now, betweenBatches: betweenBatches)
    }

    func sweepRetention(now: Timestamp = .now(), batchSize: Int = 5_000,
                        betweenBatches: () throws -> Bool = { true }) throws -> RetentionSweep {
        let day = SenseiStore.millisecondsPerDay
        let sensors = try read { session in
            try session.rows("""
                SELECT id FROM sensors s
                WHERE retention_days IS NOT NULL
                  AND (EXISTS (SELECT 1 FROM readings r
                               WHERE r.sensor_id = s.id AND r.ts < \(now.milliseconds) - s.retention_days * \(day))
                       OR EXISTS (SELECT 1 FROM reading_blocks b
                                  WHERE b.sensor_id = s.id AND b.start < \(now.milliseconds) - s.retention_days * \(day)))
                ORDER BY id
                """).map { try $0.decode(Int64.self) }
        }
        return try RetentionSweep.run(over: sensors, betweenBatches: betweenBatches) { sensorID in
            try write { session in
                try Self.deleteExpiredReadings(of: sensorID, at: now, limit: batchSize, in: session)
            }
        }
    }

    /// Deletes the oldest `limit` expired readings of a sensor and keeps its
    /// count and latest reading as the remaining readings make them. The
    /// retention is read again under the row lock: a sensor deleted or set to
    /// keep its readings since the sweep began loses nothing more.
    private static func deleteExpiredReadings(of sensorID: Int64, at now: Timestamp, limit: Int,
                                              in session: PostgresSession) throws -> RetentionBatch {
        let clock = ContinuousClock()
        let start = clock.now
        guard let days = try session.row("""
            SELECT retention_days FROM sensors WHERE id = \(sensorID) FOR NO KEY UPDATE
            """)?.decode(Int32?.self) else {
            return RetentionBatch(deleted: 0, isLast: true, held: clock.now - start)
        }
        let cutoff = now.milliseconds - Int64(days) * SenseiStore.millisecondsPerDay
        // A packed hour the cutoff falls inside goes back to rows, to be cut
        // like any other; packed hours wholly before it go whole.
        try PostgresPackedHours.unpack(sensorID: sensorID, from: cutoff - 1, through: cutoff - 1, in: session)
        let width = PackedHours.width
        // The last millisecond of the packed hour by which the oldest expired
        // blocks hold `limit` readings (or of the last expired one).
        let blocksLast = try session.row("""
            SELECT coalesce(
                (SELECT start FROM (SELECT start, sum(count) OVER (ORDER BY start) AS total FROM reading_blocks
                                    WHERE sensor_id = \(sensorID) AND start + \(width) <= \(cutoff)) b
                 WHERE total >= \(limit) ORDER BY start LIMIT 1),
                (SELECT max(start) FROM reading_blocks WHERE sensor_id = \(sensorID) AND start + \(width) <= \(cutoff)))
                + \(width) - 1
            """)?.decode(Int64?.self)
        // The batch ends on a reading (or a packed hour's end): everything up to it goes.
        let rowsLast = try session.row("""
            SELECT ts FROM readings WHERE sensor_id = \(sensorID) AND ts < \(cutoff) ORDER BY ts
            LIMIT 1 OFFSET \(limit - 1)
            """)?.decode(Int64.self) ?? cutoff - 1
        let last = min(rowsLast, blocksLast ?? cutoff - 1)
        var deleted = try session.execute("DELETE FROM readings WHERE sensor_id = \(sensorID) AND ts <= \(last)")
        deleted += Int(try session.row("""
            WITH gone AS (DELETE FROM reading_blocks WHERE sensor_id = \(sensorID) AND start + \(width) - 1 <= \(last)
                          RETURNING count)
            SELECT coalesce(sum(count), 0)::int8 FROM gone
            """)?.decode(Int64.self) ?? 0)
        // `latest` is the newest reading: if it went, they all did.
        try session.execute("""
            UPDATE sensors SET
                reading_count = reading_count - \(deleted),
                latest_value = CASE WHEN latest_ts <= \(last) THEN NULL ELSE latest_value END,
                latest_ts = CASE WHEN latest_ts <= \(last) THEN NULL ELSE latest_ts END
            WHERE id = \(sensorID)
            """)
        let more = try session.row("""
            SELECT EXISTS (SELECT 1 FROM readings WHERE sensor_id = \(sensorID) AND ts < \(cutoff))
                OR EXISTS (SELECT 1 FROM reading_blocks WHERE sensor_id = \(sensorID) AND start < \(cutoff))
            """)?.decode(Bool.self) ?? false
        return RetentionBatch(deleted: deleted, isLast: !more, held: clock.now - start)
    }

    /// The database's size on disk, as PostgreSQL counts it.
    func storedBytes() -> Int {
        (try? read { Int(try $0.row("SELECT pg_database_size(current_database())")?.decode(Int64.self) ?? 0) }) ?? 0
    }

    /// Finishes the queued writes, then closes the connections.
    public func close() throws {
        groupCommit.stop()
        connections.close()
    }
}
