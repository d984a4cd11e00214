import GRDB
import SenseiModels

/// History written in bulk (an import over `/write`) goes straight into the
/// packed hours it would end in: its readings of hours old enough to pack
/// are merged into the hour's block, where inserting them as rows, rolling
/// them up by the minute and packing them a few seconds later cost the
/// server about three times as much, and a write into a packed hour unpacked
/// it first.
///
/// An hour is merged only where the result is exactly what the rows would
/// give once packed: the hour is before the sensor's rollup frontier (moved
/// here as the write's newest reading calls for, as `ReadingInsertion`
/// would) and before the compactor's limit; it has no rows; it has a block,
/// or no rollups at all (nothing retention left of it); no reading changes a
/// stored value (the hour's min or max could go); and the merged hour stays
/// within `SenseiStore.maxPackedHourReadings`. Every other reading goes back
/// to the caller, for the row path. Dedup is by timestamp, as on rows: a
/// reading on a taken timestamp with the same value stores nothing, and of
/// one write's readings on one timestamp the last is kept.
enum HistoryPacking {
    /// Merges the readings it can into their hours' blocks (see above),
    /// updating the hour rollups, the sensor's count, latest reading and
    /// frontier; returns the readings left for the row path, in their order,
    /// and `sensor` as they should be written to.
    static func write(_ readings: [ReadingInput], into sensor: inout SenseiStore.WriteTarget, receivedAt: Timestamp,
                      keeping stored: inout [Reading]?, in db: Database) throws -> [ReadingInput] {
        let limit = PackedHours.start(of: receivedAt.milliseconds - SenseiStore.packAge)
        // The frontier this write moves to, as `ReadingInsertion` works it out.
        let newestEstimate = readings.lazy.map { $0.timestamp?.milliseconds ?? receivedAt.milliseconds }.max()
        let fold = newestEstimate.flatMap { RollupFold.target(after: $0, from: sensor.rollupsUntil) }
        // Hours that end by both the compactor's limit and the frontier.
        guard let frontier = fold ?? sensor.rollupsUntil else { return readings }
        let lastHour = min(limit, frontier) - PackedHours.width
        var hours: [Int64: [Int]] = [:]
        for (index, reading) in readings.enumerated() {
            guard let ts = reading.timestamp?.milliseconds, PackedHours.start(of: ts) <= lastHour else { continue }
            hours[PackedHours.start(of: ts), default: []].append(index)
        }
        guard !hours.isEmpty else { return readings }
        if let fold {
            try RollupFold.fold(sensorID: sensor.id, from: sensor.rollupsUntil, to: fold, in: db)
            sensor = SenseiStore.WriteTarget(id: sensor.id, code: sensor.code, valueType: sensor.valueType,
                                             rollupsUntil: fold)
        }
        let merge = HourMerge(sensorID: sensor.id, db: db)
        var merged = Array(repeating: false, count: readings.count)
        var added = 0
        var newest: StampedReading?
        for hour in hours.keys.sorted() {
            let indices = hours[hour]!
            guard let count = try merge.merge(indices.map { readings[$0] }, into: hour) else { continue }
            added += count
            for index in indices {
                merged[index] = true
                let reading = StampedReading(ts: readings[index].timestamp!.milliseconds, value: readings[index].value)
                if newest.map({ reading.ts >= $0.ts }) ?? true { newest = reading }
                stored?.append(Reading(timestamp: Timestamp(milliseconds: reading.ts), value: reading.value))
            }
        }
        if let newest {
            try ReadingInsertion.recordTotals(of: sensor.id, added: added, newest: newest, fold: fold,
                                              at: receivedAt, in: db)
        } else if let fold {
            try db.execute(sql: "UPDATE sensors SET rollups_until = ? WHERE id = ?", arguments: [fold, sensor.id])
        }
        return readings.indices.filter { !merged[$0] }.map { readings[$0] }
    }
}

/// One hour's merge of a write's readings into its block.
private struct HourMerge {
    let sensorID: Int64
    let db: Database

    /// Merges `readings` (all of the hour starting at `hour`) into its block;
    /// returns how many were new, or nil (nothing done) when the hour must go
    /// the row path.
    func merge(_ readings: [ReadingInput], into hour: Int64) throws -> Int? {
        guard try !hasRows(hour) else { return nil }
        let block = try self.block(hour)
        if block == nil, try hasRollup(hour) { return nil }
        // The write's readings by timestamp, the last of each kept.
        var incoming = readings.enumerated().map { (ts: $0.element.timestamp!.milliseconds, order: $0.offset,
                                                     value: $0.element.value) }
        incoming.sort { ($0.ts, $0.order) < ($1.ts, $1.order) }
        var timestamps: [Int64] = []
        var values: [Double] = []
        let stored = block ?? ([], [])
        timestamps.reserveCapacity(stored.timestamps.count + incoming.count)
        values.reserveCapacity(timestamps.capacity)
        var added = Aggregate.empty
        var old = 0
        var new = 0
        while old < stored.timestamps.count || new < incoming.count {
            if new < incoming.count, new + 1 < incoming.count, incoming[new + 1].ts == incoming[new].ts {
                new += 1 // a later reading on the same timestamp wins
                continue
            }
            let oldTS = old < stored.timestamps.count ? stored.timestamps[old] : .max
            let newTS = new < incoming.count ? incoming[new].ts : .max
            if oldTS < newTS {
                timestamps.append(oldTS)
                values.append(stored.values[old])
                old += 1
            } else if newTS < oldTS {
                timestamps.append(newTS)
                values.append(incoming[new].value)
                added.add(incoming[new].value)
                new += 1
            } else {
                // A value replaced would change the hour's rollup in ways only its rows can redo.
                guard stored.values[old] == incoming[new].value else { return nil }
                timestamps.append(oldTS)
                values.append(stored.values[old])
                old += 1
                new += 1
            }
        }
        guard timestamps.count <= SenseiStore.maxPackedHourReadings else { return nil }
        guard added.count > 0 else { return 0 }
        try PackedHours.writeBlock(sensorID: sensorID, hour: hour, timestamps: timestamps, values: values, in: db)
        try db.cachedStatement(sql: """
            INSERT INTO rollups_hour (sensor_id, start, count, sum, min, max) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT DO UPDATE SET count = count + excluded.count, sum = sum + excluded.sum,
                min = min(min, excluded.min), max = max(max, excluded.max)
            """).execute(arguments: [sensorID, hour, added.count, added.sum, added.min, added.max])
        return added.count
    }

    private func hasRows(_ hour: Int64) throws -> Bool {
        try exists("SELECT 1 FROM readings WHERE sensor_id = ? AND ts >= ? AND ts < ? LIMIT 1",
                   [hour, hour + PackedHours.width])
    }

    private func hasRollup(_ hour: Int64) throws -> Bool {
        try exists("SELECT 1 FROM rollups_hour WHERE sensor_id = ? AND start = ?", [hour])
    }

    /// Whether the query, given the sensor and then `values`, finds a row.
    private func exists(_ sql: String, _ values: [Int64]) throws -> Bool {
        let statement = BoundStatement(try db.cachedStatement(sql: sql))
        statement.bind(1, sensorID)
        for (offset, value) in values.enumerated() { statement.bind(Int32(2 + offset), value) }
        return try statement.first { _ in true } ?? false
    }

    private func block(_ hour: Int64) throws -> (timestamps: [Int64], values: [Double])? {
        let select = BoundStatement(try db.cachedStatement(sql: """
            SELECT data FROM reading_blocks WHERE sensor_id = ? AND start = ?
            """))
        select.bind(1, sensorID)
        select.bind(2, hour)
        return try select.first { try ReadingBlock.decode($0.blob(0)) }
    }
}
