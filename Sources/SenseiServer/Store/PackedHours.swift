import Foundation
import GRDB
import SenseiModels

/// A sensor's packed hours (`reading_blocks`, see schema.sql): packing an hour
/// of readings into a block, unpacking it again, and finding the blocks of a range.
///
/// A sensor's hour is wholly packed or wholly in `readings`. Packing drops
/// the hour's minute rollups (computed from the block when a query needs
/// them); unpacking puts the readings and those minutes back, so that a write
/// into a packed hour, and a retention cut through one, work on readings
/// exactly as they do on any other hour.
enum PackedHours {
    static let width = RollupLevel.hour.width

    /// The start of the hour holding `ts`; `Int64.min` for the open lower
    /// bound of a query (its floor does not fit).
    static func start(of ts: Int64) -> Int64 {
        ts < Int64.min + width ? .min : RollupLevel.hour.start(of: ts)
    }

    /// Packs the sensor's readings of the hour starting at `hour`; returns
    /// how many, or nil (nothing packed) when there are more than `atMost`.
    static func pack(sensorID: Int64, hour: Int64, atMost: Int, in db: Database) throws -> Int? {
        let select = BoundStatement(try db.cachedStatement(sql: """
            SELECT ts, value FROM readings WHERE sensor_id = ? AND ts >= ? AND ts < ?
            """))
        select.bind(1, sensorID)
        select.bind(2, hour)
        select.bind(3, hour + width)
        var timestamps: [Int64] = []
        var values: [Double] = []
        while let row = try select.step() {
            guard timestamps.count < atMost else {
                select.reset()
                return nil
            }
            timestamps.append(row.int64(0))
            values.append(row.double(1))
        }
        guard try writeBlock(sensorID: sensorID, hour: hour, timestamps: timestamps, values: values, in: db) else {
            return 0
        }
        try db.execute(sql: "DELETE FROM readings WHERE sensor_id = ? AND ts >= ? AND ts < ?",
                       arguments: [sensorID, hour, hour + width])
        try db.execute(sql: "DELETE FROM rollups_minute WHERE sensor_id = ? AND start >= ? AND start < ?",
                       arguments: [sensorID, hour, hour + width])
        return timestamps.count
    }

    /// Writes (or rewrites) the hour's block of these readings, with its
    /// summary; false (nothing written) when there are none.
    @discardableResult
    static func writeBlock(sensorID: Int64, hour: Int64, timestamps: [Int64], values: [Double],
                           in db: Database) throws -> Bool {
        guard let summary = UsageSummary(timestamps: timestamps, values: values) else { return false }
        let data = ReadingBlock.encode(timestamps: timestamps, values: values)
        try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO reading_blocks (sensor_id, start, count, data, \(summaryColumns))
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [sensorID, hour, timestamps.count, Data(data)] + summaryArguments(summary))
        return true
    }

    /// Unpacks every packed hour of the sensor from the one holding `lo`
    /// through the one holding `hi`.
    static func unpack(sensorID: Int64, from lo: Int64, through hi: Int64, in db: Database) throws {
        for hour in try hours(of: sensorID, from: lo, through: hi, in: db) {
            try unpack(sensorID: sensorID, hour: hour, in: db)
        }
    }

    /// Puts a packed hour back into `readings` and its minute rollups, and
    /// deletes the block.
    static func unpack(sensorID: Int64, hour: Int64, in db: Database) throws {
        let select = BoundStatement(try db.cachedStatement(sql: """
            SELECT data FROM reading_blocks WHERE sensor_id = ? AND start = ?
            """))
        select.bind(1, sensorID)
        select.bind(2, hour)
        guard let (timestamps, values) = try select.first({ try ReadingBlock.decode($0.blob(0)) }) else { return }
        let insert = BoundStatement(try db.cachedStatement(sql: """
            INSERT INTO readings (sensor_id, ts, value) VALUES (?, ?, ?) ON CONFLICT DO NOTHING
            """))
        var minutes = RollupChanges()
        for (ts, value) in zip(timestamps, values) {
            insert.bind(1, sensorID)
            insert.bind(2, ts)
            insert.bind(3, value)
            try insert.run()
            minutes.added(value, at: ts)
        }
        try minutes.restoreMinutes(of: sensorID, in: db)
        try db.execute(sql: "DELETE FROM reading_blocks WHERE sensor_id = ? AND start = ?",
                       arguments: [sensorID, hour])
    }

    /// The starts of the sensor's packed hours that hold instants from `lo`
    /// through `hi`, oldest first.
    static func hours(of sensorID: Int64, from lo: Int64, through hi: Int64, in db: Database) throws -> [Int64] {
        guard lo <= hi else { return [] }
        let statement = BoundStatement(try db.cachedStatement(sql: """
            SELECT start FROM reading_blocks WHERE sensor_id = ? AND start >= ? AND start <= ? ORDER BY start
            """))
        statement.bind(1, sensorID)
        statement.bind(2, start(of: lo))
        statement.bind(3, hi)
        var hours: [Int64] = []
        try statement.forEachRow { hours.append($0.int64(0)) }
        return hours
    }

    /// The start of the sensor's newest packed hour, nil if it has none.
    static func newestHour(of sensorID: Int64, in db: Database) throws -> Int64? {
        let statement = BoundStatement(try db.writeStatement("""
            SELECT start FROM reading_blocks WHERE sensor_id = ? ORDER BY start DESC LIMIT 1
            """))
        statement.bind(1, sensorID)
        return try statement.first { $0.int64(0) }
    }
}
