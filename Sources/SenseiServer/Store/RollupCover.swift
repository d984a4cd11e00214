import SenseiModels
import GRDB

/// A sensor's readings aggregated per span from the rollups, equal to what one
/// pass over the readings gives (but for the rounding of sums).
///
/// A rollup row that lies whole inside one span is added as a whole; a row
/// across a span boundary or a range end is covered by the next finer level,
/// and a minute across a boundary reading by reading. Each boundary cuts at
/// most one row per level, so a year in 200 spans reads its ~9,000 hours, the
/// minutes of at most 201 hours and the readings of at most 201 minutes,
/// instead of a million readings.
struct RollupCover {
    private let sensorID: Int64
    private let spans: BucketSpans
    private let levels: [RollupLevel]
    private(set) var aggregates: [Aggregate]

    /// `levels` coarsest first.
    init(sensorID: Int64, spans: BucketSpans, levels: [RollupLevel]) {
        self.sensorID = sensorID
        self.spans = spans
        self.levels = levels
        aggregates = Array(repeating: .empty, count: Int(spans.count))
    }

    /// Adds every reading of the range: from the rollups before `until` (the
    /// sensor's rollup frontier, nil: none rolled up) and from the readings
    /// themselves after it.
    mutating func coverRange(rolledUpUntil until: Int64?, in db: Database) throws {
        let until = until ?? .min
        if spans.after < until {
            try cover(from: spans.after, through: Swift.min(spans.before, until - 1), in: db)
        }
        if spans.before >= until {
            try addReadings(from: Swift.max(spans.after, until), through: spans.before, in: db)
        }
    }

    /// Adds the readings from `lo` through `hi` (inclusive, inside the range),
    /// reading the rollups of `levels[depth...]` and then the readings.
    mutating func cover(from lo: Int64, through hi: Int64, depth: Int = 0, packedChecked: Bool = false,
                        in db: Database) throws {
        guard depth < levels.count else {
            return try addReadings(from: lo, through: hi, in: db)
        }
        let level = levels[depth]
        if level == .minute, !packedChecked, try coverPackedHours(from: lo, through: hi, depth: depth, in: db) { return }
        let statement = try db.cachedStatement(sql: """
            SELECT start, count, sum, min, max FROM \(level.table)
            WHERE sensor_id = ? AND start >= ? AND start <= ?
            """)
        // Cut rows are covered after the scan, so that no statement runs
        // while another of the same level is still stepping.
        var cut: [(lo: Int64, hi: Int64)] = []
        let rows = try Row.fetchCursor(statement, arguments: [sensorID, level.start(of: lo), hi])
        while let row = try rows.next() {
            let start: Int64 = row["start"]
            let end = start + level.width - 1
            if start >= lo, end <= hi, spans.span(of: start) == spans.span(of: end) {
                aggregates[spans.span(of: start)].merge(Aggregate(row: row))
            } else {
                cut.append((max(start, lo), min(end, hi)))
            }
        }
        for part in cut {
            try cover(from: part.lo, through: part.hi, depth: depth + 1, in: db)
        }
    }

    /// A packed hour has no minute rows (`PackedHours`): its part of
    /// [lo, hi] is added from its block, the rest covered by the minutes.
    /// False when no packed hour is in the way.
    private mutating func coverPackedHours(from lo: Int64, through hi: Int64, depth: Int,
                                           in db: Database) throws -> Bool {
        let packed = try PackedHours.hours(of: sensorID, from: lo, through: hi, in: db)
        guard !packed.isEmpty else { return false }
        var next = lo
        for hour in packed {
            let packedLo = Swift.max(hour, lo)
            if next < packedLo { try cover(from: next, through: packedLo - 1, depth: depth, packedChecked: true, in: db) }
            let packedHi = Swift.min(hour + PackedHours.width - 1, hi)
            try addReadings(from: packedLo, through: packedHi, in: db)
            next = packedHi + 1
        }
        if next <= hi { try cover(from: next, through: hi, depth: depth, packedChecked: true, in: db) }
        return true
    }

    private mutating func addReadings(from lo: Int64, through hi: Int64, in db: Database) throws {
        try ReadingRange(sensorID: sensorID, lo: lo, hi: hi).forEach(ascending: true, in: db) { ts, value in
            aggregates[spans.span(of: ts)].add(value)
            return true
        }
    }
}
