import GRDB
import SenseiModels

/// What InfluxQL reads from the store: readings in a range, and the same
/// range as rollup pieces for the aggregates that count, sum, min and max answer.
extension SenseiStore {
    /// Each reading of the sensors from `lo` through `hi` (milliseconds,
    /// inclusive), sensor by sensor in time order, in one read transaction.
    /// At most `limit` of each sensor's, from the end `ascending` says.
    func influxReadings(of sensorIDs: [Int64], from lo: Int64, through hi: Int64, ascending: Bool = true,
                        limit: Int = .max, _ body: (_ sensor: Int, _ ts: Int64, _ value: Double) throws -> Void) throws {
        try pool.read { db in
            for (index, id) in sensorIDs.enumerated() {
                var count = 0
                try ReadingRange(sensorID: id, lo: lo, hi: hi).forEach(ascending: ascending, in: db) { ts, value in
                    try body(index, ts, value)
                    count += 1
                    return count < limit
                }
            }
        }
    }

    /// The earliest reading of any of the sensors (milliseconds).
    func influxFirstTime(of sensorIDs: [Int64]) throws -> Int64? {
        try pool.read { db in
            var first: Int64?
            for id in sensorIDs {
                try ReadingRange(sensorID: id, lo: Timestamp.range.lowerBound, hi: Timestamp.range.upperBound)
                    .forEach(ascending: true, in: db) { ts, _ in
                        first = Swift.min(first ?? ts, ts)
                        return false
                    }
            }
            return first
        }
    }

    /// The readings of each sensor from `lo` through `hi` (milliseconds) as
    /// pieces: `(start, count, sum, min, max)`, every piece wholly inside one
    /// minute (or, with `hourly`, one UTC hour). Hour rollups where whole hours
    /// fit, minute rollups where whole minutes do, readings for the rest: the
    /// edges, packed hours (which keep no minute rows) and whatever is past
    /// the sensor's rollup frontier.
    func influxPieces(of sensorIDs: [Int64], from lo: Int64, through hi: Int64, hourly: Bool,
                      _ body: (_ sensor: Int, _ start: Int64, _ count: Int, _ sum: Double, _ min: Double, _ max: Double) -> Void) throws {
        try pool.read { db in
            for (index, id) in sensorIDs.enumerated() {
                let until = try Self.rollupsUntil(of: id, in: db) ?? lo
                let rolledEnd = Swift.min(hi + 1, Swift.max(until, lo))  // exclusive
                var covered = lo
                if rolledEnd > lo {
                    let hour = RollupLevel.hour
                    let h0 = lo.alignedUp(to: hour.width), h1 = rolledEnd.alignedDown(to: hour.width)
                    if hourly && h0 < h1 {
                        try minutePieces(id, lo, h0, index, db, body)
                        try rollupRows(hour.table, id, h0, h1, index, db, body)
                        try minutePieces(id, h1, rolledEnd, index, db, body)
                    } else {
                        try minutePieces(id, lo, rolledEnd, index, db, body)
                    }
                    covered = rolledEnd
                }
                try raw(id, covered, hi + 1, index, db, body)
            }
        }
    }

    /// [a, b) below the frontier: minute rows for whole minutes outside packed hours, readings elsewhere.
    private func minutePieces(_ id: Int64, _ a: Int64, _ b: Int64, _ index: Int, _ db: Database,
                              _ body: (Int, Int64, Int, Double, Double, Double) -> Void) throws {
        guard a < b else { return }
        let width = RollupLevel.minute.width
        let m0 = a.alignedUp(to: width), m1 = b.alignedDown(to: width)
        guard m0 < m1 else { return try raw(id, a, b, index, db, body) }
        try raw(id, a, m0, index, db, body)
        var cursor = m0
        for hour in try PackedHours.hours(of: id, from: PackedHours.start(of: m0), through: m1 - 1, in: db) {
            let start = Swift.max(hour, m0), end = Swift.min(hour + PackedHours.width, m1)
            guard start < end else { continue }
            try rollupRows(RollupLevel.minute.table, id, cursor, start, index, db, body)
            try raw(id, start, end, index, db, body)
            cursor = end
        }
        try rollupRows(RollupLevel.minute.table, id, cursor, m1, index, db, body)
        try raw(id, m1, b, index, db, body)
    }

    private func rollupRows(_ table: String, _ id: Int64, _ a: Int64, _ b: Int64, _ index: Int, _ db: Database,
                            _ body: (Int, Int64, Int, Double, Double, Double) -> Void) throws {
        guard a < b else { return }
        let statement = BoundStatement(try db.cachedStatement(sql: """
            SELECT start, count, sum, min, max FROM \(table) WHERE sensor_id = ? AND start >= ? AND start < ? ORDER BY start
            """))
        statement.bind(1, id)
        statement.bind(2, a)
        statement.bind(3, b)
        try statement.forEachRow { row in
            body(index, row.int64(0), Int(row.int64(1)), row.double(2), row.double(3), row.double(4))
        }
    }

    /// Readings in [a, b), one piece each.
    private func raw(_ id: Int64, _ a: Int64, _ b: Int64, _ index: Int, _ db: Database,
                     _ body: (Int, Int64, Int, Double, Double, Double) -> Void) throws {
        guard a < b else { return }
        try ReadingRange(sensorID: id, lo: a, hi: b - 1).forEach(ascending: true, in: db) { ts, value in
            body(index, ts, 1, value, value, value)
            return true
        }
    }
}
