import SenseiModels
import GRDB

/// Moves a sensor's rollup frontier (`sensors.rollups_until`) on: the
/// readings between the old frontier and the new one are aggregated into
/// minute rows, and those into their hours.
///
/// A write adds to the rollups only readings before the frontier. Readings at
/// or after it are left to a fold, which the first write of each new minute
/// makes before it inserts anything, up to the minute before that write's
/// newest reading (a device's batch of past readings is thus mostly added as
/// it is inserted).
/// So a sensor's rollup rows change about once a minute, not with every
/// reading: a single-reading write runs three statements where it ran five,
/// and dirties its readings page and its sensor's row, not a minute and an
/// hour page besides. Queries add the readings after the frontier (a minute
/// or two of them) from the readings themselves.
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
    /// The readings are read in key order and added up here, as a write's
    /// own readings are (`RollupChanges`): an `INSERT ... SELECT ... GROUP BY`
    /// minute made SQLite sort them first: a 1,000-reading batch cost the
    /// writer 29 % more instructions than rolling it up on insert had.
    static func fold(sensorID: Int64, from: Int64?, to: Int64, in db: Database) throws {
        let readings = BoundStatement(try db.cachedStatement(sql: """
            SELECT ts, value FROM readings WHERE sensor_id = ? AND ts >= ? AND ts < ?
            """))
        readings.bind(1, sensorID)
        readings.bind(2, from ?? .min)
        readings.bind(3, to)
        var changes = RollupChanges()
        try readings.forEachRow { changes.added($0.double(1), at: $0.int64(0)) }
        try changes.apply(to: sensorID, in: db)
    }
}
