import GRDB
import SenseiModels

/// Where a page of every sensor's readings (or aggregates) starts: the
/// sensor, and the first timestamp (aggregate start) of it still to come.
/// Sensors before it are done. On the wire, `<sensorID>:<milliseconds>`,
/// opaque to clients.
struct BulkCursor: Sendable, Equatable {
    var sensorID: Int64
    var position: Int64

    init(sensorID: Int64, position: Int64) {
        self.sensorID = sensorID
        self.position = position
    }

    /// nil unless `text` is a cursor this server wrote.
    init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let sensorID = Int64(parts[0]), sensorID > 0,
              let position = Int64(parts[1]), Timestamp.range.contains(position) else { return nil }
        self.init(sensorID: sensorID, position: position)
    }

    var text: String { "\(sensorID):\(position)" }
}

/// One page of a bulk read: the range, the label filter, where to start and
/// how many items at most.
struct BulkQuery: Sendable {
    var after: Timestamp?
    var before: Timestamp?
    var labels: [(key: String, value: String)] = []
    var cursor: BulkCursor?
    var limit: Int
}

/// A sensor of a bulk page, as its series is headed.
struct BulkSensor: Sendable, Equatable {
    var id: Int64
    var code: String
}

extension SenseiStore {
    /// Every sensor's readings in [after, before] (inclusive), sensors in id
    /// order, each oldest first, from the cursor on, at most `limit`: `visit`
    /// gets each in that order. Returns where the next page starts, nil when
    /// nothing is left. One read transaction, so a page is a consistent cut.
    ///
    /// A sensor whose newest reading is before `after` is passed over from
    /// the sensors table alone; the others are read through `ReadingRange`
    /// (rows and packed hours), each one contiguous range.
    func readingsOfEverySensor(_ query: BulkQuery,
                               _ visit: (BulkSensor, Int64, Double) throws -> Void) throws -> BulkCursor? {
        let lo = query.after?.milliseconds ?? Int64.min
        let hi = query.before?.milliseconds ?? Int64.max
        return try pool.read { db in
            var remaining = query.limit
            var next: BulkCursor?
            try Self.forEachSensor(from: query.cursor, newestAtLeast: lo, labeled: query.labels, in: db) { sensor in
                let from = query.cursor?.sensorID == sensor.id ? max(lo, query.cursor!.position) : lo
                try ReadingRange(sensorID: sensor.id, lo: from, hi: hi).forEach(ascending: true, in: db) { ts, value in
                    guard remaining > 0 else {
                        next = BulkCursor(sensorID: sensor.id, position: ts)
                        return false
                    }
                    try visit(sensor, ts, value)
                    remaining -= 1
                    return true
                }
                return next == nil
            }
            return next
        }
    }

    /// Every sensor's minute or hour aggregates starting in [after, before],
    /// paged as `readingsOfEverySensor`; each row exactly as
    /// `aggregates(of:level:…)` gives it for that sensor.
    func aggregatesOfEverySensor(_ query: BulkQuery, level: RollupLevel,
                                 _ visit: (BulkSensor, SpanAggregate) throws -> Void) throws -> BulkCursor? {
        // Within the timestamps' range, so aligning a bound cannot overflow.
        let lo = query.after?.milliseconds ?? Timestamp.range.lowerBound
        let hi = query.before?.milliseconds ?? Timestamp.range.upperBound
        return try pool.read { db in
            var page = AggregatePage(limit: query.limit)
            // A row starting at or after `lo` holds readings from `lo` on.
            try Self.forEachSensor(from: query.cursor, newestAtLeast: lo, labeled: query.labels, in: db) { sensor in
                let from = query.cursor?.sensorID == sensor.id ? max(lo, query.cursor!.position) : lo
                // One more than fits: the first row of the next page, if any.
                let rows = try Self.aggregateRows(of: sensor.id, level: level, from: from, through: hi,
                                                  limit: page.remaining + 1, in: db)
                return try page.hand(rows, of: sensor, to: visit)
            }
            return page.next
        }
    }

    /// The sensors from the cursor's on, in id order, that carry every label
    /// of `labels` and whose newest reading is at or after `lo`, until `body`
    /// returns false.
    private static func forEachSensor(from cursor: BulkCursor?, newestAtLeast lo: Int64,
                                      labeled labels: [(key: String, value: String)], in db: Database,
                                      _ body: (BulkSensor) throws -> Bool) throws {
        let statement = BoundStatement(try db.cachedStatement(sql: """
            SELECT id, code FROM (SELECT id, code, latest_ts FROM sensors \(labelFilterClause(labels, column: "id")))
            WHERE id >= ? AND latest_ts >= ? ORDER BY id
            """))
        bindLabelFilter(labels, to: statement)
        statement.bind(Int32(2 * labels.count + 1), cursor?.sensorID ?? Int64.min)
        statement.bind(Int32(2 * labels.count + 2), lo)
        defer { statement.reset() }
        while let row = try statement.step() {
            guard try body(BulkSensor(id: row.int64(0), code: row.text(1))) else { return }
        }
    }
}
