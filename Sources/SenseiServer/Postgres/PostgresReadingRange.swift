import SenseiPostgres
import SenseiModels

/// Every reading of a sensor from `lo` through `hi` (inclusive) in
/// PostgreSQL, wherever it is kept: a row of `readings`, or a packed hour of
/// `reading_blocks` (see `ReadingRange`, its SQLite twin).
///
/// A sensor's hour is wholly in one table or the other, so ordering rows by
/// `ts` and blocks by `start` together is time order (both ways): the walk
/// reads both through one `UNION ALL … ORDER BY` a page, and pages by the
/// last key seen, each page twice the size of the one before, so a caller
/// that stops early (a page of 100 readings) reads little, and a year's walk
/// takes a few round trips.
struct PostgresReadingRange {
    let sensorID: Int64
    let lo: Int64
    let hi: Int64

    /// A packed hour as the walk hands it on: its readings still encoded.
    struct PackedHour {
        let start: Int64
        let data: [UInt8]
        /// Its `UsageSummary` columns; only when the walk was asked for them,
        /// and nil when never filled.
        let summary: UsageSummary?
    }

    /// Calls `body` with each reading in time order (`ascending` or not)
    /// until it returns false. `expected`: about how many the caller wants,
    /// the first page's size. `resumingAfter`: ascending, the rows and
    /// packed hours after that key only (the last one a caller was given).
    func forEach(ascending: Bool, expected: Int = 256, resumingAfter key: Int64? = nil, in session: PostgresSession,
                 _ body: (Int64, Double) throws -> Bool) throws {
        try forEachRowOrBlock(ascending: ascending, expected: expected, resumingAfter: key, in: session,
                              row: body) { block in
            try forEachReading(in: block, ascending: ascending, body)
        }
    }

    /// The readings of a packed hour that lie in the range, to `body` in the
    /// order asked; false when `body` stopped.
    func forEachReading(in block: PackedHour, ascending: Bool, _ body: (Int64, Double) throws -> Bool) throws -> Bool {
        try block.data.withUnsafeBufferPointer { bytes in
            try ReadingRange(sensorID: sensorID, lo: lo, hi: hi).forEachReading(in: bytes, ascending: ascending, body)
        }
    }

    /// Each row in the range to `row`, and each packed hour holding part of
    /// it whole to `block`, in time order, until either returns false. A
    /// block's readings outside the range are the callee's to skip.
    /// `summaries`: read the blocks' usage summaries too.
    func forEachRowOrBlock(ascending: Bool, summaries: Bool = false, expected: Int = 256,
                           resumingAfter key: Int64? = nil,
                           in session: PostgresSession, row rowBody: (Int64, Double) throws -> Bool,
                           block blockBody: (PackedHour) throws -> Bool) throws {
        guard lo <= hi else { return }
        // Rows from `rowsFrom`, blocks from `blocksFrom`, both through `to`
        // (ascending; descending walks down from `to`).
        var rowsFrom = lo, blocksFrom = PackedHours.start(of: lo), to = hi
        if let key {
            guard ascending, key < Int64.max else { return }
            rowsFrom = Swift.max(rowsFrom, key + 1)
            blocksFrom = Swift.max(blocksFrom, key + 1)
        }
        var pageSize = Swift.min(Swift.max(expected, 16), Self.largestPage)
        while true {
            let rows = try session.rows(Self.page(of: sensorID, rowsFrom: rowsFrom, blocksFrom: blocksFrom,
                                                  through: to, ascending: ascending, summaries: summaries,
                                                  limit: pageSize))
            for row in rows {
                let columns = row
                let key = try columns[0].decode(Int64.self)
                if let data = try columns[2].decode([UInt8]?.self) {
                    let summary = summaries ? try Self.summary(in: columns) : nil
                    guard try blockBody(PackedHour(start: key, data: data, summary: summary)) else { return }
                } else {
                    guard try rowBody(key, try columns[1].decode(Double.self)) else { return }
                }
                // The next page starts past this key, on either side.
                if ascending {
                    guard key < Int64.max else { return }
                    rowsFrom = key + 1
                    blocksFrom = key + 1
                } else {
                    guard key > Int64.min else { return }
                    to = key - 1
                }
            }
            guard rows.count == pageSize else { return }
            pageSize = Swift.min(pageSize * 2, Self.largestPage)
        }
    }

    /// Items (rows or blocks) a page at most: a few MB at worst.
    static let largestPage = 16_384

    /// Rows first by key, blocks by start, `limit` of them together. The
    /// columns: key, value (rows), data (blocks), then with `summaries` the
    /// blocks' count and `PackedHours.summaryColumns`.
    private static func page(of sensorID: Int64, rowsFrom: Int64, blocksFrom: Int64, through to: Int64,
                             ascending: Bool, summaries: Bool, limit: Int) -> PGQuery {
        let order = ascending ? "ASC" : "DESC"
        let rowExtras = summaries ? ", NULL::integer, " + Array(repeating: "NULL", count: 7).joined(separator: ", ")
            : ""
        let blockExtras = summaries ? ", count, " + PackedHours.summaryColumns : ""
        var query = PGQuery(unsafeSQL: """
            (SELECT ts AS key, value, NULL::bytea AS data\(rowExtras) FROM readings
             WHERE sensor_id = $1 AND ts >= $2 AND ts <= $4 ORDER BY ts \(order) LIMIT $5)
            UNION ALL
            (SELECT start, NULL, data\(blockExtras) FROM reading_blocks
             WHERE sensor_id = $1 AND start >= $3 AND start <= $4 ORDER BY start \(order) LIMIT $5)
            ORDER BY key \(order) LIMIT $5
            """)
        query.binds.append(sensorID)
        query.binds.append(rowsFrom)
        query.binds.append(blocksFrom)
        query.binds.append(to)
        query.binds.append(Int64(limit))
        return query
    }

    /// The summary in a page's columns 3…10; nil when never filled.
    private static func summary(in columns: PGRow) throws -> UsageSummary? {
        guard let firstTime = try columns[4].decode(Int64?.self) else { return nil }
        return UsageSummary(firstTime: firstTime, firstValue: try columns[5].decode(Double.self),
                            lastTime: try columns[6].decode(Int64.self), lastValue: try columns[7].decode(Double.self),
                            count: Int(try columns[3].decode(Int32.self)), integral: try columns[8].decode(Double.self),
                            longestGap: try columns[9].decode(Int64.self), increase: try columns[10].decode(Double.self))
    }
}
