import GRDB
import SenseiModels

/// What a compaction pass did.
public struct CompactionPass: Sendable, Equatable {
    /// Readings moved from `readings` into packed hours.
    public var packedReadings = 0
    public var packedHours = 0
    /// Write transactions it took.
    public var batches = 0
    /// Database pages given back to the file system.
    public var freedPages = 0
}

extension SenseiStore {
    /// How old an hour's last millisecond must be before the hour is packed.
    public static let packAge: Int64 = millisecondsPerDay
    /// An hour holding more readings than this (28 a second; a device sends
    /// one every few seconds at most) stays as rows. Packing builds the
    /// hour's block in memory, and a write into a packed hour unpacks it whole:
    /// a backfill of 1,000 points a second into hours being packed took the
    /// server to 101 MB and its writes' p99 to 3.4 s in the benchmark.
    public static let maxPackedHourReadings = 100_000

    /// Packs every hour of readings that ended more than `packAge` ago
    /// (`PackedHours`), sensor by sensor, about `batchReadings` readings a
    /// transaction through the group-commit writer, so that writes never wait
    /// long; then gives the freed pages back to the file system.
    /// `betweenBatches` runs after each batch, outside any transaction;
    /// returning false stops the pass there (the server is stopping).
    ///
    /// Each batch is a transaction of its own: a crash between two leaves
    /// some hours packed and the rest not, both of which every query reads.
    public func compact(now: Timestamp = .now(), batchReadings: Int = 5_000,
                        maxHourReadings: Int = maxPackedHourReadings,
                        betweenBatches: () throws -> Bool = { true }) throws -> CompactionPass {
        precondition(batchReadings >= 1, "a compaction batch packs at least one reading")
        // Hours that start before this ended `packAge` ago or more.
        let limit = PackedHours.start(of: now.milliseconds - Self.packAge)
        var stopped = false
        func goOn() throws -> Bool {
            stopped = try !betweenBatches()
            return !stopped
        }
        var pass = try CompactionPass.run(over: try sensorsToCompact(before: limit), betweenBatches: goOn) {
            sensorID, from in
            try groupCommit.write { db in
                try Self.packOldHours(of: sensorID, from: from, before: limit, readings: batchReadings,
                                      maxHourReadings: maxHourReadings, in: db)
            }
        }
        if pass.packedHours > 0 && !stopped { pass.freedPages = try releaseFreePages(betweenBatches: betweenBatches) }
        return pass
    }

    /// Sensors with a reading in `readings` before `limit`: one index seek each.
    func sensorsToCompact(before limit: Int64) throws -> [Int64] {
        try pool.read { db in
            try Int64.fetchAll(db, sql: """
                SELECT id FROM sensors s
                WHERE EXISTS (SELECT 1 FROM readings r WHERE r.sensor_id = s.id AND r.ts < ?)
                ORDER BY id
                """, arguments: [limit])
        }
    }

    /// Packs the sensor's oldest unpacked hours from `from` and before
    /// `limit` (an hour's start) until about `budget` readings are packed. An
    /// hour of more than `maxHourReadings` is passed over, and counts as that
    /// many against the budget.
    static func packOldHours(of sensorID: Int64, from: Int64, before limit: Int64, readings budget: Int,
                             maxHourReadings: Int, in db: Database) throws -> CompactionBatch {
        var batch = CompactionBatch(next: from)
        let frontier = BoundStatement(try db.cachedStatement(sql: "SELECT rollups_until FROM sensors WHERE id = ?"))
        frontier.bind(1, sensorID)
        guard let until = try frontier.first({ $0.optionalInt64(0) }) else {
            batch.isLast = true // deleted since the pass began
            return batch
        }
        // Only rolled-up hours are packed (their hour rows stay exact): a
        // sensor that went quiet before its last minutes were folded is folded
        // here first, as its next write would have.
        if until ?? .min < limit {
            try RollupFold.fold(sensorID: sensorID, from: until, to: limit, in: db)
            try db.execute(sql: "UPDATE sensors SET rollups_until = ? WHERE id = ?", arguments: [limit, sensorID])
        }
        let oldest = BoundStatement(try db.cachedStatement(sql: """
            SELECT ts FROM readings WHERE sensor_id = ? AND ts >= ? AND ts < ? ORDER BY ts LIMIT 1
            """))
        try batch.packHours(budget: budget, maxHourReadings: maxHourReadings) { from in
            oldest.bind(1, sensorID)
            oldest.bind(2, from)
            oldest.bind(3, limit)
            return try oldest.first { $0.int64(0) }
        } pack: { hour in
            try PackedHours.pack(sensorID: sensorID, hour: hour, atMost: maxHourReadings, in: db)
        }
        return batch
    }

    /// Gives the database's free pages back to the file system: a few
    /// thousand at a time (`PRAGMA incremental_vacuum`), each through the
    /// writer like any write. A database made before version 4 has no
    /// auto-vacuum: it is converted once, by a VACUUM (which rewrites the
    /// file, so only once the free pages are a quarter of it or more).
    func releaseFreePages(betweenBatches: () throws -> Bool) throws -> Int {
        let (mode, free, total) = try pool.read { db in
            (try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") ?? 0,
             try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0,
             try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0)
        }
        guard free > 0 else { return 0 }
        if mode == 0 {
            guard free * 4 >= total else { return 0 }
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL")
                try db.execute(sql: "VACUUM")
            }
            return free
        }
        var freed = 0
        while true {
            let left = try groupCommit.write { db in
                try db.execute(sql: "PRAGMA incremental_vacuum(2000)")
                return try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
            }
            freed = max(0, free - left)
            guard left > 0, try betweenBatches() else { return freed }
        }
    }
}
