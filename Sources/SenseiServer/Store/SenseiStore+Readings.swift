import GRDB
import SenseiModels

/// Which readings of a sensor to return. Bounds are inclusive.
public struct ReadingQuery: Sendable, Equatable {
    public var after: Timestamp?
    public var before: Timestamp?
    public var limit: Int
    public var ascending: Bool
    /// Readings to skip first (the firmware API pages by number).
    public var offset: Int

    public init(after: Timestamp? = nil, before: Timestamp? = nil, limit: Int = 100,
                ascending: Bool = false, offset: Int = 0) {
        self.after = after
        self.before = before
        self.limit = limit
        self.ascending = ascending
        self.offset = offset
    }
}

extension SenseiStore {
    /// Stores readings for a sensor in one all-or-nothing write, creating the
    /// sensor (named after its code, a float without units) when `createIfMissing`.
    ///
    /// A reading on an existing (sensor, timestamp) replaces its value, so a
    /// retried batch is stored once. A reading without timestamp gets
    /// `receivedAt`, moved on by 1 ms for as long as that millisecond is taken.
    /// Returns the number of readings accepted, after they are committed.
    @discardableResult
    public func insertReadings(_ readings: [ReadingInput], into reference: SensorReference,
                               createIfMissing: Bool, receivedAt: Timestamp = .now()) throws -> Int {
        try groupCommit.write(Self.insertion(readings, into: reference, createIfMissing: createIfMissing,
                                             receivedAt: receivedAt, hints: receiveTimeHints, tap: tap,
                                             maxSensors: maxSensors),
                              stored: { $1.append($0) }).count
    }

    /// `insertReadings` without waiting: `completion` runs on the writer
    /// thread once the readings are committed (or refused), so an HTTP worker
    /// can serve other connections meanwhile.
    public func insertReadings(_ readings: [ReadingInput], into reference: SensorReference,
                               createIfMissing: Bool, receivedAt: Timestamp = .now(),
                               completion: @escaping @Sendable (Result<Int, any Error>) -> Void) {
        let work = Self.insertion(readings, into: reference, createIfMissing: createIfMissing,
                                  receivedAt: receivedAt, hints: receiveTimeHints, tap: tap,
                                  maxSensors: maxSensors)
        groupCommit.submit(work, stored: { $1.append($0) }) { result in completion(result.map(\.count)) }
    }

    private static func insertion(_ readings: [ReadingInput], into reference: SensorReference,
                                  createIfMissing: Bool, receivedAt: Timestamp,
                                  hints: ReceiveTimeHints, tap: ReadingTap,
                                  maxSensors: Int) -> @Sendable (Database) throws -> StoredReadings {
        { db in
            let sensor = try resolveForWrite(reference, createIfMissing: createIfMissing, maxSensors: maxSensors,
                                             at: receivedAt, in: db)
            for (index, reading) in readings.enumerated() {
                if let problem = sensor.valueType.problem(with: reading.value) {
                    throw StoreError.invalidValue(index: index, reason: problem)
                }
            }
            var stored: [Reading]? = tap.isOn ? [] : nil
            try insert(readings, into: sensor, receivedAt: receivedAt, hints: hints, keeping: &stored, in: db)
            return StoredReadings(sensorID: sensor.id, code: sensor.code, count: readings.count, readings: stored ?? [])
        }
    }

    /// What a write needs of its sensor.
    struct WriteTarget {
        let id: Int64
        let code: String
        let valueType: ValueType
        /// `sensors.rollups_until`: see `RollupFold`.
        let rollupsUntil: Int64?
    }

    /// The sensor a write goes to, read through the C API, since every write asks.
    private static func resolveForWrite(_ reference: SensorReference, createIfMissing: Bool, maxSensors: Int,
                                        at now: Timestamp, in db: Database) throws -> WriteTarget {
        let lookup: BoundStatement
        switch reference {
        case .id(let id):
            lookup = BoundStatement(try db.cachedStatement(sql: """
                SELECT id, value_type, rollups_until, code FROM sensors WHERE id = ?
                """))
            lookup.bind(1, id)
        case .code(let code):
            lookup = BoundStatement(try db.cachedStatement(sql: """
                SELECT id, value_type, rollups_until, code FROM sensors WHERE code = ?
                """))
            lookup.bind(1, code)
        }
        if let found = try lookup.first({
            WriteTarget(id: $0.int64(0), code: $0.text(3), valueType: ValueType(rawValue: $0.text(1)) ?? .float,
                        rollupsUntil: $0.optionalInt64(2))
        }) {
            return found
        }
        guard createIfMissing, case .code(let code) = reference else {
            throw StoreError.sensorNotFound(reference)
        }
        try requireRoom(for: 1, maxSensors: maxSensors, in: db)
        let id = try insertSensor(code: code, name: nil, units: "", valueType: .float, at: now, in: db)
        return WriteTarget(id: id, code: code, valueType: .float, rollupsUntil: nil)
    }

    /// Stores readings of one sensor whose values fit its type: dedup,
    /// receive-time placement, rollups, count and latest. Every write path
    /// (REST, firmware, series ingest) goes through here. `stored`, when not
    /// nil, gets the readings as stored (for the live stream).
    static func insert(_ readings: [ReadingInput], into sensor: WriteTarget, receivedAt: Timestamp,
                       hints: ReceiveTimeHints, keeping stored: inout [Reading]?,
                       in db: Database) throws {
        let sensorID = sensor.id
        try unpackHoursWritten(readings, of: sensorID, receivedAt: receivedAt, in: db)
        // First the fold this write's newest reading calls for, so that the
        // write's own readings before the new frontier (most of a device's
        // batch) are added up below as they are inserted, not read back.
        // Receive-time readings land at `receivedAt` or a little after: an
        // estimate that can only hold the frontier back, never push it past
        // a reading.
        let newestEstimate = readings.lazy.map { $0.timestamp?.milliseconds ?? receivedAt.milliseconds }.max()
        let fold = newestEstimate.flatMap { RollupFold.target(after: $0, from: sensor.rollupsUntil) }
        if let fold { try RollupFold.fold(sensorID: sensorID, from: sensor.rollupsUntil, to: fold, in: db) }
        // Readings from here on are rolled up later, by a fold (`RollupFold`).
        let frontier = fold ?? sensor.rollupsUntil ?? .min
        let insert = BoundStatement(try db.cachedStatement(sql: """
            INSERT INTO readings (sensor_id, ts, value) VALUES (?, ?, ?) ON CONFLICT DO NOTHING
            """))
        // `value <> ?`: a retry that resends the same value changes nothing,
        // and so costs the rollups nothing. Prepared only when needed: most
        // readings are new.
        var replace: BoundStatement?
        func replacement() throws -> BoundStatement {
            if let replace { return replace }
            replace = BoundStatement(try db.cachedStatement(sql: """
                UPDATE readings SET value = ?1 WHERE sensor_id = ?2 AND ts = ?3 AND value <> ?1
                """))
            return replace!
        }
        var added = 0
        var newest: (ts: Int64, value: Double)?
        var rollups = RollupChanges()
        var nextReceiveTime: Int64?
        // `>=`: of several readings at one instant, the later one wins.
        func noteNewest(_ ts: Int64, _ value: Double) {
            if newest == nil || ts >= newest!.ts { newest = (ts, value) }
        }
        /// One reading by itself: a new row, a device reading's new value, or
        /// a receive-time reading moved on past taken milliseconds.
        func insertOne(_ reading: ReadingInput) throws {
            var ts = reading.timestamp?.milliseconds
                ?? nextReceiveTime ?? hints.start(for: sensorID, receivedAt: receivedAt.milliseconds)
            while true {
                insert.bind(1, sensorID)
                insert.bind(2, ts)
                insert.bind(3, reading.value)
                if try insert.run() == 1 {
                    added += 1
                    if ts < frontier { rollups.added(reading.value, at: ts) }
                    break
                }
                if reading.timestamp == nil {
                    ts += 1
                } else {
                    let replace = try replacement()
                    replace.bind(1, reading.value)
                    replace.bind(2, sensorID)
                    replace.bind(3, ts)
                    if try replace.run() == 1, ts < frontier { rollups.replaced(at: ts) }
                    break
                }
            }
            if reading.timestamp == nil { nextReceiveTime = ts + 1 }
            noteNewest(ts, reading.value)
            stored?.append(Reading(timestamp: Timestamp(milliseconds: ts), value: reading.value))
        }
        var index = readings.startIndex
        while index < readings.endIndex {
            let end = index + ChunkInsert.size
            if end <= readings.endIndex,
               let last = try ChunkInsert.run(readings[index..<end], sensorID: sensorID, in: db) {
                for reading in readings[index..<end] where reading.timestamp!.milliseconds < frontier {
                    rollups.added(reading.value, at: reading.timestamp!.milliseconds)
                }
                added += ChunkInsert.size
                noteNewest(last.ts, last.value)
                if stored != nil {
                    for reading in readings[index..<end] { stored!.append(Reading(timestamp: reading.timestamp!, value: reading.value)) }
                }
                index = end
            } else {
                // Row by row, up to where the next chunk may start.
                let stop = min(end, readings.endIndex)
                for reading in readings[index..<stop] { try insertOne(reading) }
                index = stop
            }
        }
        if let nextReceiveTime { hints.record(nextReceiveTime, for: sensorID) }
        guard let newest else { return }
        try rollups.apply(to: sensorID, in: db)
        let update = BoundStatement(try db.cachedStatement(sql: """
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

    /// Readings of a sensor; `StoreError.sensorNotFound` if there is no such sensor.
    public func readings(of reference: SensorReference, _ query: ReadingQuery) throws -> (Sensor, [Reading]) {
        try pool.read { db in
            guard let sensor = try Self.fetchSensor(reference, in: db) else {
                throw StoreError.sensorNotFound(reference)
            }
            let lo = query.after?.milliseconds ?? Int64.min
            let hi = query.before?.milliseconds ?? Int64.max
            var readings: [Reading] = []
            readings.reserveCapacity(min(query.limit, sensor.count))
            let range = ReadingRange(sensorID: sensor.id, lo: lo, hi: hi)
            if try range.touchesPackedHours(in: db) {
                // Packed hours are merged in here, skipping `offset` and
                // stopping at `limit` as SQL would.
                var skip = query.offset
                guard query.limit > 0 else { return (sensor, readings) }
                try range.forEach(ascending: query.ascending, in: db) { ts, value in
                    if skip > 0 {
                        skip -= 1
                        return true
                    }
                    readings.append(Reading(timestamp: Timestamp(milliseconds: ts), value: value))
                    return readings.count < query.limit
                }
                return (sensor, readings)
            }
            let order = query.ascending ? "ASC" : "DESC"
            let statement = try db.cachedStatement(sql: """
                SELECT ts, value FROM readings
                WHERE sensor_id = ? AND ts >= ? AND ts <= ?
                ORDER BY ts \(order) LIMIT ? OFFSET ?
                """)
            let rows = try Row.fetchCursor(statement, arguments: [sensor.id, lo, hi, query.limit, query.offset])
            while let row = try rows.next() {
                readings.append(Reading(timestamp: Timestamp(milliseconds: row[0]), value: row[1]))
            }
            return (sensor, readings)
        }
    }
}
