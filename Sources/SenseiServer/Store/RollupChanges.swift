import SenseiModels
import GRDB

/// What one write does to a sensor's rollups, gathered in memory so that a
/// batch costs one upsert per minute and hour it touches, not one per reading.
/// Only for readings before the sensor's rollup frontier: those after it are
/// rolled up later, by `RollupFold`.
///
/// A new reading only adds to its minute and hour. A replaced value is rarer
/// and breaks that: the old value may have been the minute's min or max, and
/// is part of its sum. So its minute is recomputed from the readings, and its
/// hour from the minutes.
struct RollupChanges {
    private var minutes: [Int64: Aggregate] = [:]
    private var replacedMinutes: Set<Int64> = []

    mutating func added(_ value: Double, at ts: Int64) {
        minutes[RollupLevel.minute.start(of: ts), default: .empty].add(value)
    }

    mutating func replaced(at ts: Int64) {
        replacedMinutes.insert(RollupLevel.minute.start(of: ts))
    }

    /// Writes only the minute rows, for a packed hour being unpacked: its
    /// hour row holds these readings already.
    func restoreMinutes(of sensorID: Int64, in db: Database) throws {
        try Self.add(minutes, to: .minute, of: sensorID, in: db)
    }

    func apply(to sensorID: Int64, in db: Database) throws {
        guard !minutes.isEmpty || !replacedMinutes.isEmpty else { return }
        var hours: [Int64: Aggregate] = [:]
        for (minute, aggregate) in minutes {
            hours[RollupLevel.hour.start(of: minute), default: .empty].merge(aggregate)
        }
        // In key order: neighbouring rows share b-tree pages.
        try Self.add(minutes, to: .minute, of: sensorID, in: db)
        try Self.add(hours, to: .hour, of: sensorID, in: db)
        guard !replacedMinutes.isEmpty else { return }
        // After the additions, so that a minute both added to and replaced in
        // this write ends up as its readings say.
        let recomputeMinute = try db.cachedStatement(sql: """
            INSERT INTO rollups_minute (sensor_id, start, count, sum, min, max)
            SELECT ?1, ?2, count(*), sum(value), min(value), max(value) FROM readings
            WHERE sensor_id = ?1 AND ts >= ?2 AND ts < ?2 + 60000
            ON CONFLICT DO UPDATE SET
                count = excluded.count, sum = excluded.sum, min = excluded.min, max = excluded.max
            """)
        var replacedHours: Set<Int64> = []
        for minute in replacedMinutes.sorted() {
            try recomputeMinute.execute(arguments: [sensorID, minute])
            replacedHours.insert(RollupLevel.hour.start(of: minute))
        }
        let recomputeHour = try db.cachedStatement(sql: """
            INSERT INTO rollups_hour (sensor_id, start, count, sum, min, max)
            SELECT ?1, ?2, sum(count), sum(sum), min(min), max(max) FROM rollups_minute
            WHERE sensor_id = ?1 AND start >= ?2 AND start < ?2 + 3600000
            ON CONFLICT DO UPDATE SET
                count = excluded.count, sum = excluded.sum, min = excluded.min, max = excluded.max
            """)
        for hour in replacedHours.sorted() {
            try recomputeHour.execute(arguments: [sensorID, hour])
        }
    }

    private static func add(_ aggregates: [Int64: Aggregate], to level: RollupLevel, of sensorID: Int64,
                            in db: Database) throws {
        // An update, then an insert only when the row is new: most writes
        // land in a minute and hour that exist.
        let update = BoundStatement(try db.cachedStatement(sql: level.addSQL))
        for start in aggregates.keys.sorted() {
            let aggregate = aggregates[start]!
            if try run(update, sensorID, start, aggregate) == 0 {
                try run(BoundStatement(db.cachedStatement(sql: level.insertSQL)), sensorID, start, aggregate)
            }
        }
    }

    /// Binds the six values every rollup statement takes; returns the rows changed.
    @discardableResult
    private static func run(_ statement: BoundStatement, _ sensorID: Int64, _ start: Int64,
                            _ aggregate: Aggregate) throws -> Int {
        statement.bind(1, sensorID)
        statement.bind(2, start)
        statement.bind(3, aggregate.count)
        statement.bind(4, aggregate.sum)
        statement.bind(5, aggregate.min)
        statement.bind(6, aggregate.max)
        return try statement.run()
    }
}

private extension RollupLevel {
    // Spelled out, not interpolated: built on every write, the SQL cost as
    // much as running it.
    var addSQL: String {
        switch self {
        case .minute: """
            UPDATE rollups_minute SET count = count + ?3, sum = sum + ?4, min = min(min, ?5), max = max(max, ?6)
            WHERE sensor_id = ?1 AND start = ?2
            """
        case .hour: """
            UPDATE rollups_hour SET count = count + ?3, sum = sum + ?4, min = min(min, ?5), max = max(max, ?6)
            WHERE sensor_id = ?1 AND start = ?2
            """
        }
    }

    var insertSQL: String {
        switch self {
        case .minute: "INSERT INTO rollups_minute (sensor_id, start, count, sum, min, max) VALUES (?, ?, ?, ?, ?, ?)"
        case .hour: "INSERT INTO rollups_hour (sensor_id, start, count, sum, min, max) VALUES (?, ?, ?, ?, ?, ?)"
        }
    }
}
