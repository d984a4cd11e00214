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
    func forEach(ascending: Bool, in db: Database, _ body: (Int64, Double) throws -> Bool) throws {
        guard lo <= hi else { return }
        let order = ascending ? "ASC" : "DESC"
        let rows = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT ts, value FROM readings WHERE sensor_id = ? AND ts >= ? AND ts <= ? ORDER BY ts \(order)
            """), arguments: [sensorID, lo, hi])
        let blocks = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT start, data FROM reading_blocks WHERE sensor_id = ? AND start >= ? AND start <= ?
            ORDER BY start \(order)
            """), arguments: [sensorID, PackedHours.start(of: lo), hi])
        var block = try blocks.next()
        /// Emits the current block's readings in the range; false when `body` stopped.
        func emitBlock() throws -> Bool {
            let data: [UInt8] = [UInt8]((block![1] as Data))
            block = try blocks.next()
            let (timestamps, values) = try ReadingBlock.decode(data)
            let indices = ascending ? Array(timestamps.indices) : timestamps.indices.reversed()
            for index in indices where timestamps[index] >= lo && timestamps[index] <= hi {
                guard try body(timestamps[index], values[index]) else { return false }
            }
            return true
        }
        while let row = try rows.next() {
            let ts: Int64 = row[0]
            // A block whose hour comes before this row (in the order asked):
            // the row is not in that hour, so the whole block comes first.
            while let next = block {
                let start: Int64 = next[0]
                guard ascending ? start < ts : start > ts else { break }
                guard try emitBlock() else { return }
            }
            guard try body(ts, row[1]) else { return }
        }
        while block != nil {
            guard try emitBlock() else { return }
        }
    }
}
