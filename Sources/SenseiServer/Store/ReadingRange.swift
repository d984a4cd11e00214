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
        try forEachRowOrBlock(ascending: ascending, blockColumns: "data", in: db, row: body) { block in
            try forEachReading(in: block.blob(1), ascending: ascending, body)
        }
    }

    /// The readings of a packed hour's `data` that lie in the range, to
    /// `body` in the order asked; false when `body` stopped.
    func forEachReading(in data: UnsafeBufferPointer<UInt8>, ascending: Bool,
                        _ body: (Int64, Double) throws -> Bool) throws -> Bool {
        let (timestamps, values) = try ReadingBlock.decode(data)
        let indices = ascending ? Array(timestamps.indices) : timestamps.indices.reversed()
        for index in indices where timestamps[index] >= lo && timestamps[index] <= hi {
            guard try body(timestamps[index], values[index]) else { return false }
        }
        return true
    }

    /// The walk under `forEach`: each row in the range to `row`, and each
    /// packed hour holding part of it whole to `block`, as the columns
    /// `start, <blockColumns>` of its `reading_blocks` row (valid only during
    /// the call), in time order, until either returns false. A block's
    /// readings outside the range are the callee's to skip.
    func forEachRowOrBlock(ascending: Bool, blockColumns: String, in db: Database,
                           row rowBody: (Int64, Double) throws -> Bool,
                           block blockBody: (BoundStatement.Columns) throws -> Bool) throws {
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
            SELECT start, \(blockColumns) FROM reading_blocks WHERE sensor_id = ? AND start >= ? AND start <= ?
            ORDER BY start \(order)
            """))
        blocks.bind(1, sensorID)
        blocks.bind(2, PackedHours.start(of: lo))
        blocks.bind(3, hi)
        defer { blocks.reset() }
        /// The row the blocks statement is on, nil past the last.
        var block = try blocks.step()
        /// Hands the current block on, then steps past it (its columns are SQLite's until then).
        func emitBlock() throws -> Bool {
            let goOn = try blockBody(block!)
            block = try blocks.step()
            return goOn
        }
        while let row = try rows.step() {
            let ts = row.int64(0)
            let value = row.double(1)
            // A block whose hour comes before this row (in the order asked):
            // the row is not in that hour, so the whole block comes first.
            while let start = block?.int64(0), ascending ? start < ts : start > ts {
                guard try emitBlock() else { return }
            }
            guard try rowBody(ts, value) else { return }
        }
        while block != nil {
            guard try emitBlock() else { return }
        }
    }
}
