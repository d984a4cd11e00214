import GRDB
import SenseiModels

/// Where each level of one sensor's cache is complete. Readings are kept
/// from `rawFrom` on, minute rollups from `minuteFrom` on, hour rollups for
/// all time; nil: from the first reading (a cache that holds every reading,
/// as one from before tiers did). Both are whole hours, so no granule of any
/// level straddles a boundary, and `minuteFrom <= rawFrom`.
///
/// Inside the raw window the cache computes minutes and hours from its
/// readings; beyond it they are the server's aggregates, kept as sent.
struct Coverage: Equatable {
    var rawFrom: Int64?
    var minuteFrom: Int64?

    static let everything = Coverage(rawFrom: nil, minuteFrom: nil)

    /// The finest level complete at `time`: nil for readings.
    func finestLevel(at time: Int64) -> RollupLevel? {
        if rawFrom.map({ time >= $0 }) ?? true { return nil }
        if minuteFrom.map({ time >= $0 }) ?? true { return .minute }
        return .hour
    }

    /// `time` moved back to the start of its granule at the finest level
    /// complete there: a window starting there holds whole granules only.
    func snapStart(_ time: Int64) -> Int64 {
        guard let level = finestLevel(at: time) else { return time }
        return time.alignedDown(to: level.width)
    }

    /// `time` moved on to the last millisecond of its granule at the finest
    /// level complete there.
    func snapEnd(_ time: Int64) -> Int64 {
        guard let level = finestLevel(at: time) else { return time }
        return time.alignedDown(to: level.width) + level.width - 1
    }

    /// The window `[start, end]` in whole granules of what is kept there.
    func snap(_ start: Int64, _ end: Int64) -> (start: Int64, end: Int64) {
        (snapStart(start), Swift.max(snapStart(start), snapEnd(end)))
    }

    static func read(sensorId: Int64, in db: Database) throws -> Coverage {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT raw_from, minute_from FROM sensors WHERE id = ?
            """), arguments: [sensorId]) else { return .everything }
        return Coverage(rawFrom: row[0], minuteFrom: row[1])
    }
}

extension SensorCache {
    /// Where the sensor's levels are complete (see `Coverage`).
    func coverage(sensorId: Int64) throws -> Coverage {
        try pool.read { db in try Coverage.read(sensorId: sensorId, in: db) }
    }
}
