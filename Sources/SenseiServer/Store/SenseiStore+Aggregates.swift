import GRDB
import SenseiModels

extension SenseiStore {
    /// A sensor's minute or hour aggregates whose start is in [after, before]
    /// (inclusive, nil: unbounded), oldest first, at most `limit`: the rollup
    /// rows, and the readings after the rollup frontier (a minute or two, see
    /// `RollupFold`) folded the same way, in one read transaction so they agree.
    ///
    /// The minute of an hour's min and max is not stored: it is the first of
    /// the hour's minute rows holding that value, read here (60 small rows an
    /// hour, in key order beside the hours). A minute's is the minute itself.
    func aggregates(of reference: SensorReference, level: RollupLevel, after: Timestamp?,
                           before: Timestamp?, limit: Int) throws -> (Sensor, [SpanAggregate]) {
        try pool.read { db in
            guard let sensor = try Self.fetchSensor(reference, in: db) else {
                throw StoreError.sensorNotFound(reference)
            }
            // Within the timestamps' range, so aligning a bound cannot overflow.
            let lo = after?.milliseconds ?? Timestamp.range.lowerBound
            let hi = before?.milliseconds ?? Timestamp.range.upperBound
            let rows = try Self.aggregateRows(of: sensor.id, level: level, from: lo, through: hi, limit: limit, in: db)
            return (sensor, rows.map(\.wire))
        }
    }

    /// `aggregates(of:…)` of one sensor inside a read: the rows starting in
    /// [lo, hi] (milliseconds within `Timestamp.range`), oldest first, at most `limit`.
    static func aggregateRows(of sensorID: Int64, level: RollupLevel, from lo: Int64, through hi: Int64,
                              limit: Int, in db: Database) throws -> [SpanRow] {
        guard lo <= hi, limit >= 1 else { return [] }
        let until = try rollupsUntil(of: sensorID, in: db) ?? Timestamp.range.lowerBound
        var rows = try storedAggregates(of: sensorID, level: level, from: lo, through: hi, limit: limit, in: db)
        if level == .minute {
            // Packed hours keep no minute rows: their minutes come from their blocks.
            rows = try withPackedMinutes(rows, of: sensorID, from: lo, through: hi, until: until, limit: limit, in: db)
        }
        // The tail matters unless the page is full before the frontier's row.
        if rows.count < limit || rows[rows.count - 1].start + level.width > until {
            let tail = try tailAggregates(of: sensorID, level: level, from: lo, through: hi, until: until, in: db)
            rows = merged(rows, tail, limit: limit)
        }
        return rows
    }

    private static func storedAggregates(of sensorID: Int64, level: RollupLevel, from lo: Int64, through hi: Int64,
                                         limit: Int, in db: Database) throws -> [SpanRow] {
        // Through the C API: `GET /aggregates` runs this for each of thousands of sensors.
        let statement = BoundStatement(try db.cachedStatement(sql: """
            SELECT start, count, sum, min, max FROM \(level.table)
            WHERE sensor_id = ? AND start >= ? AND start <= ? ORDER BY start LIMIT ?
            """))
        statement.bind(1, sensorID)
        statement.bind(2, lo)
        statement.bind(3, hi)
        statement.bind(4, limit)
        var rows: [SpanRow] = []
        try statement.forEachRow { row in
            let start = row.int64(0)
            let aggregate = Aggregate(count: Int(row.int64(1)), sum: row.double(2), min: row.double(3), max: row.double(4))
            rows.append(SpanRow(start: start, aggregate: aggregate, minAt: start, maxAt: start))
        }
        if level == .hour, let first = rows.first, let last = rows.last {
            try locateExtremes(of: &rows, sensorID: sensorID, from: first.start, upTo: last.start + level.width,
                               in: db)
        }
        return rows
    }

    /// `rows` (minute rollup rows, in start order, at most `limit`) with the
    /// minutes of the packed hours among them folded from their blocks, cut to
    /// `limit` again. Packed hours past the page's last row are not read.
    private static func withPackedMinutes(_ rows: [SpanRow], of sensorID: Int64, from lo: Int64, through hi: Int64,
                                          until: Int64, limit: Int, in db: Database) throws -> [SpanRow] {
        let level = RollupLevel.minute
        let first = level.start(of: lo) == lo ? lo : level.start(of: lo) + level.width
        let last = Swift.min(level.start(of: hi) + level.width - 1, until - 1,
                             rows.count >= limit ? rows[rows.count - 1].start - 1 : .max)
        guard first <= last else { return rows }
        var packed: [SpanRow] = []
        var before = 0  // rows that start before the hour being read
        for hour in try PackedHours.hours(of: sensorID, from: first, through: last, in: db) {
            while before < rows.count, rows[before].start < hour { before += 1 }
            guard before + packed.count < limit else { break }
            let range = ReadingRange(sensorID: sensorID, lo: Swift.max(hour, first),
                                     hi: Swift.min(hour + PackedHours.width - 1, last))
            try range.forEach(ascending: true, in: db) { ts, value in
                packed.fold(ts, value, level: level)
                return true
            }
        }
        guard !packed.isEmpty else { return rows }
        return Array((rows + packed).sorted { $0.start < $1.start }.prefix(limit))
    }

    /// Sets each hour's `minAt` and `maxAt` to its first minute holding the
    /// hour's min (max), in one pass over the minutes of [from, upTo); a
    /// packed hour, which keeps no minute rows, from its block.
    private static func locateExtremes(of hours: inout [SpanRow], sensorID: Int64, from: Int64, upTo: Int64,
                                       in db: Database) throws {
        try locatePackedExtremes(of: &hours, sensorID: sensorID, from: from, upTo: upTo, in: db)
        let statement = BoundStatement(try db.cachedStatement(sql: """
            SELECT start, min, max FROM rollups_minute WHERE sensor_id = ? AND start >= ? AND start < ?
            ORDER BY start
            """))
        statement.bind(1, sensorID)
        statement.bind(2, from)
        statement.bind(3, upTo)
        var index = 0
        var found = (min: false, max: false)
        try statement.forEachRow { row in
            let minute = row.int64(0)
            let hour = RollupLevel.hour.start(of: minute)
            while index < hours.count, hours[index].start < hour {
                index += 1
                found = (false, false)
            }
            guard index < hours.count, hours[index].start == hour else { return }
            if !found.min, row.double(1) == hours[index].aggregate.min {
                hours[index].minAt = minute
                found.min = true
            }
            if !found.max, row.double(2) == hours[index].aggregate.max {
                hours[index].maxAt = minute
                found.max = true
            }
        }
    }

    private static func locatePackedExtremes(of hours: inout [SpanRow], sensorID: Int64, from: Int64, upTo: Int64,
                                             in db: Database) throws {
        var index = 0
        for hour in try PackedHours.hours(of: sensorID, from: from, through: upTo - 1, in: db) {
            while index < hours.count, hours[index].start < hour { index += 1 }
            guard index < hours.count, hours[index].start == hour else { continue }
            var found = (min: false, max: false)
            let row = hours[index]
            try ReadingRange(sensorID: sensorID, lo: hour, hi: hour + PackedHours.width - 1)
                .forEach(ascending: true, in: db) { ts, value in
                    if !found.min, value == row.aggregate.min {
                        hours[index].minAt = RollupLevel.minute.start(of: ts)
                        found.min = true
                    }
                    if !found.max, value == row.aggregate.max {
                        hours[index].maxAt = RollupLevel.minute.start(of: ts)
                        found.max = true
                    }
                    return !(found.min && found.max)
                }
        }
    }

    /// The readings at or after the frontier `until` folded into rows of
    /// `level` that start in [lo, hi].
    private static func tailAggregates(of sensorID: Int64, level: RollupLevel, from lo: Int64, through hi: Int64,
                                       until: Int64, in db: Database) throws -> [SpanRow] {
        // Rows start in [lo, hi]: from the first whole row at or after lo (the
        // frontier's hour before the frontier is in its stored row), through
        // the end of the row holding hi.
        let first = level.start(of: lo) == lo ? lo : level.start(of: lo) + level.width
        let from = Swift.max(first, until)
        let through = level.start(of: hi) + level.width - 1
        var rows: [SpanRow] = []
        // Wherever the readings are kept: a sensor silent for a day has its
        // tail packed in blocks.
        try ReadingRange(sensorID: sensorID, lo: from, hi: through).forEach(ascending: true, in: db) { ts, value in
            rows.fold(ts, value, level: level)
            return true
        }
        return rows
    }

    /// Stored rows and tail rows (both in start order) as one list: a row both
    /// hold (the hour across the frontier) merged, then cut to `limit`.
    private static func merged(_ stored: [SpanRow], _ tail: [SpanRow], limit: Int) -> [SpanRow] {
        var rows = stored
        for part in tail {
            if let index = rows.lastIndex(where: { $0.start == part.start }) {
                rows[index].merge(part)
            } else {
                rows.append(part)
            }
        }
        return Array(rows.prefix(limit))
    }
}
