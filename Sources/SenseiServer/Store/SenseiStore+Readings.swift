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
            lookup = BoundStatement(try db.writeStatement("""
                SELECT id, value_type, rollups_until, code FROM sensors WHERE id = ?
                """))
            lookup.bind(1, id)
        case .code(let code):
            lookup = BoundStatement(try db.writeStatement("""
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

    /// Stores readings of one sensor whose values fit its type (see
    /// `ReadingInsertion`). `stored`, when not nil, gets the readings as
    /// stored (for the live stream). `packingHistory`: the readings of hours
    /// old enough to pack go straight into their blocks (`HistoryPacking`).
    static func insert(_ readings: [ReadingInput], into sensor: WriteTarget, receivedAt: Timestamp,
                       hints: ReceiveTimeHints, keeping stored: inout [Reading]?, packingHistory: Bool = false,
                       in db: Database) throws {
        var sensor = sensor
        var readings = readings
        if packingHistory {
            readings = try HistoryPacking.write(readings, into: &sensor, receivedAt: receivedAt, keeping: &stored, in: db)
            guard !readings.isEmpty else { return }
        }
        var insertion = try ReadingInsertion(sensor: sensor, readings: readings, receivedAt: receivedAt,
                                             hints: hints, keepingStored: stored != nil, in: db)
        try insertion.insert(readings)
        try insertion.finish()
        if let kept = insertion.stored { stored?.append(contentsOf: kept) }
    }

    /// Readings of a sensor; `StoreError.sensorNotFound` if there is no such sensor.
    public func readings(of reference: SensorReference, _ query: ReadingQuery) throws -> (Sensor, [Reading]) {
        try pool.read { db in
            guard let sensor = try Self.fetchSensor(reference, in: db) else {
                throw StoreError.sensorNotFound(reference)
            }
            let lo = query.after?.milliseconds ?? Int64.min
            let hi = query.before?.milliseconds ?? Int64.max
            let range = ReadingRange(sensorID: sensor.id, lo: lo, hi: hi)
            if try range.touchesPackedHours(in: db) {
                // Packed hours are merged in here, so the page is made here.
                guard query.limit > 0 else { return (sensor, []) }
                var page = ReadingPage(query, capacity: sensor.count)
                try range.forEach(ascending: query.ascending, in: db) { page.take($0, $1) }
                return (sensor, page.readings)
            }
            var readings: [Reading] = []
            readings.reserveCapacity(min(query.limit, sensor.count))
            let order = query.ascending ? "ASC" : "DESC"
            let statement = try db.cachedStatement(sql: """
                SELECT ts, value FROM readings
                WHERE sensor_id = ? AND ts >= ? AND ts <= ?
                ORDER BY ts \(order) LIMIT ? OFFSET ?
                """)
            let rows = try Row.fetchCursor(statement, arguments: [sensor.id, lo, hi, query.limit, query.offset])
            while let row = try rows.next() {
                readings.append(Reading(timestamp: Timestamp(milliseconds: row["ts"]), value: row["value"]))
            }
            return (sensor, readings)
        }
    }
}
