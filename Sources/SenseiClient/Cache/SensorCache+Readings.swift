import GRDB
import SenseiModels

extension SensorCache {
    /// Stores a page of one sensor's readings (ascending, as the server pages
    /// them) and brings its rollups up to date, in one transaction: a sync cut
    /// short leaves whole pages, never readings without their rollups. A
    /// reading on a cached timestamp replaces it (the server's later value wins).
    public func insertReadings(_ readings: [Reading], sensorId: Int64) throws {
        try insertReadings([(sensorId, readings)])
    }

    /// `insertReadings(_:sensorId:)` for several sensors (a page of
    /// `GET /readings`), in one transaction.
    public func insertReadings(_ series: [(sensorId: Int64, readings: [Reading])]) throws {
        guard series.contains(where: { !$0.readings.isEmpty }) else { return }
        try pool.write { db in
            let insert = try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO readings (sensor_id, ts, value) VALUES (?, ?, ?)
                """)
            for (sensorId, readings) in series {
                guard let first = readings.first else { continue }
                var low = first.timestamp.milliseconds, high = low
                for reading in readings {
                    let time = reading.timestamp.milliseconds
                    low = min(low, time)
                    high = max(high, time)
                    try insert.execute(arguments: [sensorId, time, reading.value])
                }
                try Self.rebuildRollups(sensorId: sensorId, from: low, through: high, in: db)
            }
        }
    }

    /// The newest cached reading's time: the next sync asks for what follows it.
    public func newestTimestamp(sensorId: Int64) throws -> Timestamp? {
        try pool.read { db in try Self.newest(sensorId: sensorId, in: db) }
    }

    /// The oldest cached reading's time.
    public func oldestTimestamp(sensorId: Int64) throws -> Timestamp? {
        try pool.read { db in try Self.oldest(sensorId: sensorId, in: db) }
    }

    /// Readings cached for a sensor in all.
    public func readingCount(sensorId: Int64) throws -> Int {
        try pool.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM readings WHERE sensor_id = ?", arguments: [sensorId]) ?? 0
        }
    }

    /// Up to `limit` readings of the range's window older than `before`
    /// (exclusive), newest first.
    public func readings(sensorId: Int64, range: TimeRange, before: Timestamp, limit: Int,
                         now: Timestamp = .now()) throws -> [Reading] {
        let start = range.milliseconds.map { Timestamp(milliseconds: now.milliseconds - $0) }
        return try readings(sensorId: sensorId, from: start ?? Timestamp(milliseconds: .min), before: before, limit: limit)
    }

    /// Up to `limit` readings from `start` (inclusive) and older than `before`
    /// (exclusive), newest first: the readings table's next page of a window.
    public func readings(sensorId: Int64, from start: Timestamp, before: Timestamp, limit: Int) throws -> [Reading] {
        try pool.read { db in
            try Self.readingsNewestFirst(sensorId: sensorId, from: start.milliseconds, through: before.milliseconds - 1,
                                         limit: limit, in: db)
        }
    }

    static func readingsNewestFirst(sensorId: Int64, from start: Int64, through end: Int64, limit: Int,
                                    in db: Database) throws -> [Reading] {
        let statement = try db.cachedStatement(sql: """
            SELECT ts, value FROM readings WHERE sensor_id = ? AND ts >= ? AND ts <= ?
            ORDER BY ts DESC LIMIT ?
            """)
        var readings: [Reading] = []
        let rows = try Row.fetchCursor(statement, arguments: [sensorId, start, end, max(0, limit)])
        while let row = try rows.next() {
            readings.append(Reading(timestamp: Timestamp(milliseconds: row[0]), value: row[1]))
        }
        return readings
    }

    /// Readings in [start, end], oldest first, as chart points.
    static func rawSeries(sensorId: Int64, from start: Int64, through end: Int64, in db: Database) throws -> TimeSeries {
        let statement = try db.cachedStatement(sql: """
            SELECT ts, value FROM readings WHERE sensor_id = ? AND ts >= ? AND ts <= ? ORDER BY ts
            """)
        var timestamps: [Int64] = [], values: [Double] = []
        let rows = try Row.fetchCursor(statement, arguments: [sensorId, start, end])
        while let row = try rows.next() {
            timestamps.append(row[0])
            values.append(row[1])
        }
        return TimeSeries(timestamps: timestamps, values: values)
    }

    static func newest(sensorId: Int64, in db: Database) throws -> Timestamp? {
        try Int64.fetchOne(db.cachedStatement(sql: """
            SELECT ts FROM readings WHERE sensor_id = ? ORDER BY ts DESC LIMIT 1
            """), arguments: [sensorId]).map(Timestamp.init(milliseconds:))
    }

    static func oldest(sensorId: Int64, in db: Database) throws -> Timestamp? {
        try Int64.fetchOne(db.cachedStatement(sql: """
            SELECT ts FROM readings WHERE sensor_id = ? ORDER BY ts LIMIT 1
            """), arguments: [sensorId]).map(Timestamp.init(milliseconds:))
    }

    /// The oldest thing kept of the sensor: a reading, or a minute or hour row.
    static func oldestKept(sensorId: Int64, in db: Database) throws -> Timestamp? {
        // Rollups count only before the raw window: inside it they start on
        // the minute before their first reading.
        let rawFrom = try Coverage.read(sensorId: sensorId, in: db).rawFrom ?? .min
        let row = try Int64.fetchOne(db.cachedStatement(sql: """
            SELECT min(start) FROM rollups WHERE sensor_id = ? AND start < ?
            """), arguments: [sensorId, rawFrom])
        return [try oldest(sensorId: sensorId, in: db)?.milliseconds, row].compactMap { $0 }.min()
            .map(Timestamp.init(milliseconds:))
    }

    /// The first and last times in [start, end] of readings, or where there
    /// are none (beyond the raw window) of kept rows' starts.
    static func keptBounds(sensorId: Int64, from start: Int64, through end: Int64,
                           in db: Database) throws -> (oldest: Int64, newest: Int64)? {
        let raw = try bounds(sensorId: sensorId, from: start, through: end, in: db)
        let rawFrom = try Coverage.read(sensorId: sensorId, in: db).rawFrom ?? .min
        let rows = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT min(start), max(start) FROM rollups WHERE sensor_id = ? AND start >= ? AND start <= ? AND start < ?
            """), arguments: [sensorId, start, end, rawFrom])
        let oldest = [raw?.oldest, rows?[0] as Int64?].compactMap { $0 }.min()
        let newest = raw?.newest ?? rows?[1] as Int64?
        guard let oldest, let newest else { return nil }
        return (oldest, newest)
    }

    /// The first and last reading times in [start, end]: two seeks on the key
    /// (one `min(ts), max(ts)` query would scan the range).
    static func bounds(sensorId: Int64, from start: Int64, through end: Int64,
                       in db: Database) throws -> (oldest: Int64, newest: Int64)? {
        let first = try Int64.fetchOne(db.cachedStatement(sql: """
            SELECT ts FROM readings WHERE sensor_id = ? AND ts >= ? AND ts <= ? ORDER BY ts LIMIT 1
            """), arguments: [sensorId, start, end])
        let last = try Int64.fetchOne(db.cachedStatement(sql: """
            SELECT ts FROM readings WHERE sensor_id = ? AND ts >= ? AND ts <= ? ORDER BY ts DESC LIMIT 1
            """), arguments: [sensorId, start, end])
        guard let first, let last else { return nil }
        return (first, last)
    }
}
