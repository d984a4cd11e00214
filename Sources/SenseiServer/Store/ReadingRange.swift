import Foundation
import GRDB

/// Every reading of a sensor from `lo` through `hi` (inclusive), wherever it
/// is kept: in `readings`, or packed in `reading_blocks`. An hour is wholly
/// in one or the other, so the two are merged hour by hour: a block comes
/// out whole before (ascending) or after the first row that follows it.
struct ReadingRange {
    let sensorID: Int64
    let lo: Int64
    let hi: Int64

    /// Whether any packed hour holds part of the range: when none does, the
    /// callers keep their plain SQL over `readings`.
    func touchesPackedHours(in db: Database) throws -> Bool {
        guard lo <= hi else { return false }
        let statement = BoundStatement(try db.cachedStatement(sql: """
            SELECT 1 FROM reading_blocks WHERE sensor_id = ? AND start >= ? AND start <= ? LIMIT 1
            """))
        statement.bind(1, sensorID)
        statement.bind(2, PackedHours.start(of: lo))
        statement.bind(3, hi)
        return try statement.first { _ in true } ?? false
    }

    /// Calls `body` with each reading in time order (`ascending` or not)
    /// until it returns false.
    ///
    /// Through SQLite's C API (`BoundStatement`): `GET /readings` runs this
    /// for each of thousands of sensors, and a GRDB `Row` a reading cost
    /// more than the rest of the walk.
    func forEach(ascending: Bool, in db: Database, _ body: (Int64, Double) throws -> Bool) throws {
        guard lo <= hi else { return }
        let order = ascending ? "ASC" : "DESC"
        let rows = BoundStatement(try db.cachedStatement(sql: """
            SELECT ts, value FROM readings WHERE sensor_id = ? AND ts >= ? AND ts <= ? ORDER BY ts \(order)
            """))
        rows.bind(1, sensorID)
        rows.bind(2, lo)
        rows.bind(3, hi)
        defer { rows.reset() }
        let blocks = BoundStatement(try db.cachedStatement(sql: """
            SELECT start, data FROM reading_blocks WHERE sensor_id = ? AND start >= ? AND start <= ?
            ORDER BY start \(order)
            """))
        blocks.bind(1, sensorID)
        blocks.bind(2, PackedHours.start(of: lo))
        blocks.bind(3, hi)
        defer { blocks.reset() }
        /// The row the blocks statement is on, nil past the last.
        var block = try blocks.step()
        /// Emits the current block's readings in the range; false when `body` stopped.
        func emitBlock() throws -> Bool {
            // Decoded before stepping on: the blob is SQLite's until then.
            let (timestamps, values) = try ReadingBlock.decode(block!.blob(1))
            block = try blocks.step()
            let indices = ascending ? Array(timestamps.indices) : timestamps.indices.reversed()
            for index in indices where timestamps[index] >= lo && timestamps[index] <= hi {
                guard try body(timestamps[index], values[index]) else { return false }
            }
            return true
        }
        while let row = try rows.step() {
            let ts = row.int64(0)
            let value = row.double(1)
            // A block whose hour comes before this row (in the order asked):
            // the row is not in that hour, so the whole block comes first.
            while let start = block?.int64(0), ascending ? start < ts : start > ts {
                guard try emitBlock() else { return }
            }
            guard try body(ts, value) else { return }
        }
        while block != nil {
            guard try emitBlock() else { return }
        }
    }
}
