import GRDB
import SenseiModels

/// What a sync's audit reads and changes: the cache's side of the comparison
/// with the server, and the repairs.
extension SensorCache {
    /// The cached readings of each span of `grid` added up (nil where a span
    /// has none), from the rollups where a span is whole granules.
    func spanAggregates(sensorId: Int64, grid: AuditGrid) throws -> [SpanAggregate?] {
        try pool.read { db in
            var folder = SpanFolder(span: grid.span, floor: grid.start)
            try Self.fold(sensorId: sensorId, from: grid.start, through: grid.end, level: grid.level,
                          into: &folder, in: db)
            var spans = [SpanAggregate?](repeating: nil, count: grid.count)
            for aggregate in folder.spans { spans[grid.index(of: aggregate.start.milliseconds)] = aggregate }
            return spans
        }
    }

    /// Makes the cached readings in [start, end] exactly `readings` (all the
    /// server has there) and rebuilds the rollups over them, in one
    /// transaction. Returns how many cached readings the server no longer had.
    @discardableResult
    public func replaceReadings(sensorId: Int64, from start: Int64, through end: Int64,
                                with readings: [Reading]) throws -> Int {
        try pool.write { db in try Self.replace(sensorId: sensorId, from: start, through: end, with: readings, in: db) }
    }

    /// Forgets what is older than `cutoff` at every level, as the server does
    /// past a sensor's retention: readings, and minute and hour rows wholly
    /// before it (one across it stays until an audit refetches it). Returns
    /// how many readings there were.
    @discardableResult
    public func trimReadings(sensorId: Int64, before cutoff: Timestamp) throws -> Int {
        try pool.write { db in
            var dropped = 0
            if let oldest = try Self.oldest(sensorId: sensorId, in: db), oldest < cutoff {
                dropped = try Self.replace(sensorId: sensorId, from: oldest.milliseconds,
                                           through: cutoff.milliseconds - 1, with: [], in: db)
            }
            for level in RollupLevel.allCases {
                try db.execute(sql: "DELETE FROM rollups WHERE sensor_id = ? AND level = ? AND start <= ?",
                               arguments: [sensorId, level, cutoff.milliseconds - level.width])
            }
            return dropped
        }
    }

    /// Cached readings at or before `end`, counted from the rollups.
    public func readingCount(sensorId: Int64, through end: Timestamp) throws -> Int {
        try pool.read { db in
            guard let oldest = try Self.oldestKept(sensorId: sensorId, in: db),
                  oldest <= end else { return 0 }
            let coverage = try Coverage.read(sensorId: sensorId, in: db)
            let (from, through) = coverage.snap(oldest.milliseconds, end.milliseconds)
            return try Self.total(sensorId: sensorId, from: from, through: through, in: db)?.count ?? 0
        }
    }

    /// When the sensor's readings were last audited; nil if never.
    public func auditedAt(sensorId: Int64) throws -> Timestamp? {
        try pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT audited_at FROM sensors WHERE id = ?", arguments: [sensorId])
                .map(Timestamp.init(milliseconds:))
        }
    }

    public func setAuditedAt(_ time: Timestamp, sensorId: Int64) throws {
        try pool.write { db in
            try db.execute(sql: "UPDATE sensors SET audited_at = ? WHERE id = ?", arguments: [time.milliseconds, sensorId])
        }
    }

    private static func replace(sensorId: Int64, from start: Int64, through end: Int64, with readings: [Reading],
                                in db: Database) throws -> Int {
        guard start <= end else { return 0 }
        let incoming = readings.filter { (start...end).contains($0.timestamp.milliseconds) }
        let kept = Set(incoming.map(\.timestamp.milliseconds))
        var dropped = 0
        try forEach(level: nil, sensorId: sensorId, from: start, upTo: end + 1, in: db) { reading in
            if !kept.contains(reading.start.milliseconds) { dropped += 1 }
        }
        try db.execute(sql: "DELETE FROM readings WHERE sensor_id = ? AND ts >= ? AND ts <= ?",
                       arguments: [sensorId, start, end])
        let insert = try db.cachedStatement(sql: "INSERT OR REPLACE INTO readings (sensor_id, ts, value) VALUES (?, ?, ?)")
        for reading in incoming {
            try insert.execute(arguments: [sensorId, reading.timestamp.milliseconds, reading.value])
        }
        try rebuildRollups(sensorId: sensorId, from: start, through: end, in: db)
        return dropped
    }
}
