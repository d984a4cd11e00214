import GRDB
import SenseiModels

extension SensorCache {
    /// Recomputes, level by level from `first`, the rollup granules that
    /// readings in [low, high] fall in: minutes from the readings, hours from
    /// the minutes, so a page of 10 000 readings rewrites a few hundred small
    /// rows and never rescans older data. A level is computed only where the
    /// level below is complete (`Coverage`): beyond the raw window the
    /// minutes, and beyond the minute window the hours, are the server's.
    static func rebuildRollups(sensorId: Int64, from low: Int64, through high: Int64, startingAt first: RollupLevel = .minute,
                               in db: Database) throws {
        let coverage = try Coverage.read(sensorId: sensorId, in: db)
        var low = low, high = high
        let delete = try db.cachedStatement(sql: """
            DELETE FROM rollups WHERE sensor_id = ? AND level = ? AND start >= ? AND start < ?
            """)
        let insert = try db.cachedStatement(sql: """
            INSERT INTO rollups (sensor_id, level, start, count, sum, min, min_ts, max, max_ts)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for level in RollupLevel.allCases where level >= first {
            let granule = level.width
            let complete = (level == .minute ? coverage.rawFrom : coverage.minuteFrom) ?? .min
            let from = max(low.alignedDown(to: granule), complete)
            let upTo = high.alignedDown(to: granule) + granule
            (low, high) = (low.alignedDown(to: granule), upTo - 1)
            guard from < upTo else { continue }
            var folder = SpanFolder(span: granule, floor: .min)
            try forEach(level: level.finer, sensorId: sensorId, from: from, upTo: upTo, in: db) {
                folder.add($0)
            }
            try delete.execute(arguments: [sensorId, level, from, upTo])
            for item in folder.spans {
                try insert.execute(arguments: [sensorId, level, item.start.milliseconds, item.count, item.sum,
                                               item.min, item.minAt.milliseconds, item.max, item.maxAt.milliseconds])
            }
        }
    }

    /// Rebuilds a whole cache's minutes and hours from its readings, a week
    /// at a time (bounded memory): the upgrade from rollups of another shape.
    static func rebuildAllRollups(in db: Database) throws {
        let week: Int64 = 7 * 86_400_000
        for sensorId in try Int64.fetchAll(db, sql: "SELECT id FROM sensors") {
            guard let oldest = try oldest(sensorId: sensorId, in: db)?.milliseconds,
                  let newest = try newest(sensorId: sensorId, in: db)?.milliseconds else { continue }
            var from = oldest.alignedDown(to: week)
            while from <= newest {
                try rebuildRollups(sensorId: sensorId, from: from, through: from + week - 1, in: db)
                from += week
            }
        }
    }

    /// Calls `body` with each reading (`level` nil) or each rollup of `level`
    /// starting in [from, upTo), oldest first.
    static func forEach(level: RollupLevel?, sensorId: Int64, from: Int64, upTo: Int64, in db: Database,
                        _ body: (SpanAggregate) -> Void) throws {
        guard from < upTo else { return }
        if let level {
            let statement = try db.cachedStatement(sql: """
                SELECT start, count, sum, min, min_ts, max, max_ts FROM rollups
                WHERE sensor_id = ? AND level = ? AND start >= ? AND start < ? ORDER BY start
                """)
            let rows = try Row.fetchCursor(statement, arguments: [sensorId, level, from, upTo])
            while let row = try rows.next() {
                body(SpanAggregate(start: Timestamp(milliseconds: row[0]), count: row[1], sum: row[2], min: row[3],
                                   minAt: Timestamp(milliseconds: row[4]), max: row[5], maxAt: Timestamp(milliseconds: row[6])))
            }
        } else {
            let statement = try db.cachedStatement(sql: """
                SELECT ts, value FROM readings WHERE sensor_id = ? AND ts >= ? AND ts < ? ORDER BY ts
                """)
            let rows = try Row.fetchCursor(statement, arguments: [sensorId, from, upTo])
            while let row = try rows.next() {
                body(SpanAggregate(time: row[0], value: row[1]))
            }
        }
    }

    /// Feeds `folder` the readings in [start, end] (inclusive) as exact
    /// aggregates: whole granules of `level` from its rollups, the ragged
    /// edges from the finer levels down to raw readings. In time order.
    static func fold(sensorId: Int64, from start: Int64, through end: Int64, level: RollupLevel?,
                     into folder: inout SpanFolder, in db: Database) throws {
        guard start <= end else { return }
        guard let level else {
            try forEach(level: nil, sensorId: sensorId, from: start, upTo: end + 1, in: db) { folder.add($0) }
            return
        }
        let granule = level.width
        let finer = level.finer
        let innerStart = start.alignedUp(to: granule)
        let innerEnd = (end + 1).alignedDown(to: granule)
        guard innerStart < innerEnd else {
            try fold(sensorId: sensorId, from: start, through: end, level: finer, into: &folder, in: db)
            return
        }
        try fold(sensorId: sensorId, from: start, through: innerStart - 1, level: finer, into: &folder, in: db)
        try forEach(level: level, sensorId: sensorId, from: innerStart, upTo: innerEnd, in: db) { folder.add($0) }
        try fold(sensorId: sensorId, from: innerEnd, through: end, level: finer, into: &folder, in: db)
    }

    /// The readings in [start, end] folded into one aggregate; nil when none.
    static func total(sensorId: Int64, from start: Int64, through end: Int64, in db: Database) throws -> SpanAggregate? {
        var folder = SpanFolder(span: nil, floor: start)
        let level = RollupLevel.coarsest(atMost: (end - start + 1) / 4)
        try fold(sensorId: sensorId, from: start, through: end, level: level, into: &folder, in: db)
        return folder.spans.first
    }

    /// How to cut [start, end] into at most about `maxBuckets` spans that are
    /// whole granules of some rollup level, at least `finest` (what is kept
    /// at `start`): nil when the window is so short, and raw readings cover
    /// it, that they are the chart.
    static func bucketPlan(from start: Int64, through end: Int64, maxBuckets: Int,
                           finest: RollupLevel? = nil) -> (span: Int64, level: RollupLevel)? {
        let target = (end - start + 1) / Int64(max(1, maxBuckets))
        let fitting = RollupLevel.coarsest(atMost: target)
        guard let level = [fitting, finest].compactMap({ $0 }).max() else { return nil }
        return ((max(1, target)).alignedUp(to: level.width), level)
    }

    /// [start, end] as buckets of equal, epoch-aligned spans (the first one
    /// starting at `start`), each the exact aggregate of its readings.
    static func buckets(sensorId: Int64, from start: Int64, through end: Int64, span: Int64, level: RollupLevel,
                        in db: Database) throws -> [SpanAggregate] {
        var folder = SpanFolder(span: span, floor: start)
        try fold(sensorId: sensorId, from: start, through: end, level: level, into: &folder, in: db)
        return folder.spans
    }
}
