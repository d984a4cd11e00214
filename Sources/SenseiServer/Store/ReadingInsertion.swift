import GRDB
import SenseiModels

/// One write of one sensor's readings, inside the writer's transaction, a
/// step a method: `init` readies the sensor's rows (packed hours unpacked,
/// rollups folded), `insert` stores the readings (dedup, replacement,
/// receive-time placement), `finish` records the rollups, count and latest.
/// Every write path (REST, firmware, series ingest) goes through it.
struct ReadingInsertion {
    private let sensorID: Int64
    private let receivedAt: Timestamp
    private let hints: ReceiveTimeHints
    private let db: Database
    /// The fold this write called for, recorded on the sensor by `finish`.
    private let fold: Int64?
    /// Readings before it are added to the rollups as they are inserted;
    /// later ones are rolled up by a fold (`RollupFold`).
    private let frontier: Int64
    private let insertRow: BoundStatement
    /// Prepared only when needed: most readings are new.
    private var replaceRow: BoundStatement?
    private var added = 0
    private var newest: StampedReading?
    private var rollups = RollupChanges()
    /// Where the next receive-time reading of this write may land.
    private var nextReceiveTime: Int64?
    /// The readings as stored, when asked for (for the live stream).
    private(set) var stored: [Reading]?

    init(sensor: SenseiStore.WriteTarget, readings: [ReadingInput], receivedAt: Timestamp,
         hints: ReceiveTimeHints, keepingStored: Bool, in db: Database) throws {
        sensorID = sensor.id
        self.receivedAt = receivedAt
        self.hints = hints
        self.db = db
        stored = keepingStored ? [] : nil
        try Self.unpackHoursWritten(readings, of: sensor.id, receivedAt: receivedAt, in: db)
        // First the fold this write's newest reading calls for, so that the
        // write's own readings before the new frontier (most of a device's
        // batch) are added up as they are inserted, not read back.
        // Receive-time readings land at `receivedAt` or a little after: an
        // estimate that can only hold the frontier back, never push it past
        // a reading.
        let newestEstimate = readings.lazy.map { $0.timestamp?.milliseconds ?? receivedAt.milliseconds }.max()
        fold = newestEstimate.flatMap { RollupFold.target(after: $0, from: sensor.rollupsUntil) }
        if let fold { try RollupFold.fold(sensorID: sensor.id, from: sensor.rollupsUntil, to: fold, in: db) }
        frontier = fold ?? sensor.rollupsUntil ?? .min
        insertRow = BoundStatement(try db.writeStatement("""
            INSERT INTO readings (sensor_id, ts, value) VALUES (?, ?, ?) ON CONFLICT DO NOTHING
            """))
    }

    /// Stores the readings: a chunk a statement where a chunk cannot collide
    /// (`ChunkInsert`), row by row elsewhere.
    mutating func insert(_ readings: [ReadingInput]) throws {
        var index = readings.startIndex
        while index < readings.endIndex {
            let end = index + ChunkInsert.size
            if end <= readings.endIndex,
               let chunk = try ChunkInsert.run(readings[index..<end], sensorID: sensorID, in: db) {
                for reading in chunk { note(reading, added: true) }
                index = end
            } else {
                // Row by row, up to where the next chunk may start.
                let stop = min(end, readings.endIndex)
                for reading in readings[index..<stop] { try insertOne(reading) }
                index = stop
            }
        }
    }

    /// One reading by itself: a new row, a device reading's new value, or
    /// a receive-time reading moved on past taken milliseconds.
    private mutating func insertOne(_ reading: ReadingInput) throws {
        guard let timestamp = reading.timestamp else {
            var ts = nextReceiveTime ?? hints.start(for: sensorID, receivedAt: receivedAt.milliseconds)
            while try !insertRow(at: ts, reading.value) { ts += 1 }
            nextReceiveTime = ts + 1
            note(StampedReading(ts: ts, value: reading.value), added: true)
            return
        }
        let stamped = StampedReading(ts: timestamp.milliseconds, value: reading.value)
        if try insertRow(at: stamped.ts, stamped.value) {
            note(stamped, added: true)
        } else {
            try replaceValue(with: stamped)
            note(stamped, added: false)
        }
    }

    /// Inserts a row; false when the sensor already has one at `ts`.
    private func insertRow(at ts: Int64, _ value: Double) throws -> Bool {
        insertRow.bind(1, sensorID)
        insertRow.bind(2, ts)
        insertRow.bind(3, value)
        return try insertRow.run() == 1
    }

    /// A device reading on a taken timestamp: the later value wins. `value <>
    /// ?`: a retry that resends the same value changes nothing, and so costs
    /// the rollups nothing.
    private mutating func replaceValue(with reading: StampedReading) throws {
        let replace = try replaceRow ?? BoundStatement(db.writeStatement("""
            UPDATE readings SET value = ?1 WHERE sensor_id = ?2 AND ts = ?3 AND value <> ?1
            """))
        replaceRow = replace
        replace.bind(1, reading.value)
        replace.bind(2, sensorID)
        replace.bind(3, reading.ts)
        if try replace.run() == 1, reading.ts < frontier { rollups.replaced(at: reading.ts) }
    }

    /// Counts a stored reading into the rollups, the newest and `stored`.
    private mutating func note(_ reading: StampedReading, added isNew: Bool) {
        if isNew {
            added += 1
            if reading.ts < frontier { rollups.added(reading.value, at: reading.ts) }
        }
        // `>=`: of several readings at one instant, the later one wins.
        if newest.map({ reading.ts >= $0.ts }) ?? true { newest = reading }
        stored?.append(Reading(timestamp: Timestamp(milliseconds: reading.ts), value: reading.value))
    }

    /// Records what the write changed: the receive-time hint, the rollups,
    /// and the sensor's count, latest reading and fold frontier.
    func finish() throws {
        if let nextReceiveTime { hints.record(nextReceiveTime, for: sensorID) }
        guard let newest else { return }
        try rollups.apply(to: sensorID, in: db)
        try Self.recordTotals(of: sensorID, added: added, newest: newest, fold: fold, at: receivedAt, in: db)
    }

    /// Adds `added` to the sensor's count, makes `newest` its latest reading
    /// unless it has a later one, and moves its fold frontier to `fold`.
    static func recordTotals(of sensorID: Int64, added: Int, newest: StampedReading, fold: Int64?,
                             at receivedAt: Timestamp, in db: Database) throws {
        let update = BoundStatement(try db.writeStatement("""
            UPDATE sensors SET
                reading_count = reading_count + ?1,
                latest_value = CASE WHEN latest_ts IS NULL OR ?2 >= latest_ts THEN ?3 ELSE latest_value END,
                latest_ts = CASE WHEN latest_ts IS NULL OR ?2 >= latest_ts THEN ?2 ELSE latest_ts END,
                updated_at = ?4,
                rollups_until = coalesce(?6, rollups_until)
            WHERE id = ?5
            """))
        update.bind(1, added)
        update.bind(2, newest.ts)
        update.bind(3, newest.value)
        update.bind(4, receivedAt.milliseconds)
        update.bind(5, sensorID)
        if let fold { update.bind(6, fold) } else { update.bindNull(6) }
        try update.run()
    }

    /// Unpacks the packed hours (`PackedHours`) that the readings of a write
    /// may land in, so that dedup, replacement and the rollups work on rows as
    /// everywhere else. One index seek when the write is newer than every
    /// packed hour, as nearly every write is.
    private static func unpackHoursWritten(_ readings: [ReadingInput], of sensorID: Int64, receivedAt: Timestamp,
                                           in db: Database) throws {
        guard let newestPacked = try PackedHours.newestHour(of: sensorID, in: db) else { return }
        var hours: [Int64] = []
        for reading in readings {
            guard let ts = reading.timestamp?.milliseconds else { continue }
            let hour = PackedHours.start(of: ts)
            if hour <= newestPacked && hours.last != hour { hours.append(hour) }
        }
        for hour in Set(hours) { try PackedHours.unpack(sensorID: sensorID, hour: hour, in: db) }
        // A receive-time reading lands at `receivedAt` or later.
        if readings.contains(where: { $0.timestamp == nil }), PackedHours.start(of: receivedAt.milliseconds) <= newestPacked {
            try PackedHours.unpack(sensorID: sensorID, from: receivedAt.milliseconds, through: .max, in: db)
        }
    }
}

/// A reading placed at its millisecond.
struct StampedReading {
    let ts: Int64
    let value: Double
}
