import GRDB
import SenseiModels

/// Where one cached sensor stands for the next sync, read for every sensor
/// at once: at 10,000 sensors a sync decides what to do from one query, not
/// from several per sensor.
public struct SyncState: Sendable, Equatable {
    /// Whether the cache holds any reading or rollup of it.
    public var holdsAnything: Bool
    public var newest: Int64?
    public var oldest: Int64?
    public var rawFrom: Int64?
    public var backfilled: Bool
    public var auditedAt: Int64?
    /// The server's latest time and count when a sync last completed it.
    public var syncedLatest: Int64?
    public var syncedCount: Int?
}

extension SensorCache {
    /// Every cached sensor's `SyncState`, by id. One read.
    public func syncStates() throws -> [Int64: SyncState] {
        try pool.read { db in
            let rows = try Row.fetchCursor(db, sql: """
                SELECT id, raw_from, backfilled, audited_at, synced_latest, synced_count,
                       (SELECT ts FROM readings r WHERE r.sensor_id = s.id ORDER BY ts DESC LIMIT 1) AS newest,
                       (SELECT ts FROM readings r WHERE r.sensor_id = s.id ORDER BY ts LIMIT 1) AS oldest,
                       EXISTS (SELECT 1 FROM rollups u WHERE u.sensor_id = s.id) AS has_rollups
                FROM sensors s
                """)
            var states: [Int64: SyncState] = [:]
            while let row = try rows.next() {
                let newest: Int64? = row["newest"]
                states[row["id"]] = SyncState(
                    holdsAnything: newest != nil || row["has_rollups"], newest: newest, oldest: row["oldest"],
                    rawFrom: row["raw_from"], backfilled: row["backfilled"], auditedAt: row["audited_at"],
                    syncedLatest: row["synced_latest"], syncedCount: row["synced_count"])
            }
            return states
        }
    }

    /// Records that a sync brought these sensors up to the server's latest
    /// time and count as listed. One transaction.
    public func markSynced(_ sensors: [Sensor]) throws {
        guard !sensors.isEmpty else { return }
        try pool.write { db in
            let update = try db.cachedStatement(sql: "UPDATE sensors SET synced_latest = ?, synced_count = ? WHERE id = ?")
            for sensor in sensors {
                try update.execute(arguments: [sensor.latest?.timestamp.milliseconds, sensor.count, sensor.id])
            }
        }
    }

    /// Ends the first sync of sensors fetched whole in bulk: those in
    /// `everything` hold their whole history raw; all are backfilled,
    /// audited at `now` and synced as listed. One transaction.
    public func finishFirstSync(_ sensors: [Sensor], everything: Set<Int64>, now: Timestamp) throws {
        try pool.write { db in
            let update = try db.cachedStatement(sql: """
                UPDATE sensors SET backfilled = 1, audited_at = ?, synced_latest = ?, synced_count = ?,
                    raw_from = CASE WHEN ? THEN NULL ELSE raw_from END,
                    minute_from = CASE WHEN ? THEN NULL ELSE minute_from END
                WHERE id = ?
                """)
            for sensor in sensors {
                let whole = everything.contains(sensor.id)
                try update.execute(arguments: [now.milliseconds, sensor.latest?.timestamp.milliseconds, sensor.count,
                                               whole, whole, sensor.id])
            }
        }
    }

    /// Readings cached of each sensor, by id (sensors without any are absent).
    public func readingCounts() throws -> [Int64: Int] {
        try pool.read { db in
            var counts: [Int64: Int] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT sensor_id, count(*) FROM readings GROUP BY sensor_id")
            while let row = try rows.next() { counts[row[0]] = row[1] }
            return counts
        }
    }
}
