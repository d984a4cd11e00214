import Foundation
import GRDB
import SenseiModels

/// Each packed hour's `UsageSummary`, kept beside its block (schema.sql,
/// `reading_blocks`), so that usage over a long range reads these instead of
/// decoding every block. Written when the hour is packed (the only time a
/// block is written) and filled for older blocks by the version 9 upgrade.
/// A reader that finds none (NULL) decodes the block as before.
extension PackedHours {
    /// The summary's columns besides `count`, in the order `summaryArguments`
    /// and `summary(in:from:count:)` use.
    static let summaryColumns = "first_ts, first_value, last_ts, last_value, integral, longest_gap, increase"

    static func summaryArguments(_ summary: UsageSummary) -> StatementArguments {
        [summary.firstTime, summary.firstValue, summary.lastTime, summary.lastValue,
         summary.integral, summary.longestGap, summary.increase]
    }

    /// The summary in the columns `summaryColumns` from `index` on; nil when
    /// it was never filled.
    static func summary(in columns: BoundStatement.Columns, from index: Int32, count: Int) -> UsageSummary? {
        guard let firstTime = columns.optionalInt64(index) else { return nil }
        return UsageSummary(firstTime: firstTime, firstValue: columns.double(index + 1),
                            lastTime: columns.int64(index + 2), lastValue: columns.double(index + 3), count: count,
                            integral: columns.double(index + 4), longestGap: columns.int64(index + 5),
                            increase: columns.double(index + 6))
    }

    /// Fills the summary of every packed hour that has none (the version 9
    /// upgrade), a batch of blocks at a time: each decoded, summarised and
    /// updated by its key, never while a statement over the table is open.
    /// Returns how many it filled.
    @discardableResult
    static func fillMissingSummaries(in db: Database, batch: Int = 2_000) throws -> Int {
        var filled = 0
        var after: (sensorID: Int64, start: Int64) = (.min, .min)
        while true {
            let rows = try Row.fetchAll(db, sql: """
                SELECT sensor_id, start, data FROM reading_blocks
                WHERE first_ts IS NULL AND (sensor_id, start) > (?, ?)
                ORDER BY sensor_id, start LIMIT ?
                """, arguments: [after.sensorID, after.start, batch])
            guard let last = rows.last else { return filled }
            after = (last[0], last[1])
            for row in rows {
                let data: Data = row[2]
                let (timestamps, values) = try ReadingBlock.decode([UInt8](data))
                guard let summary = UsageSummary(timestamps: timestamps, values: values) else { continue }
                try db.execute(sql: """
                    UPDATE reading_blocks SET (\(summaryColumns)) = (?, ?, ?, ?, ?, ?, ?)
                    WHERE sensor_id = ? AND start = ?
                    """, arguments: summaryArguments(summary) + [row[0] as Int64, row[1] as Int64])
                filled += 1
            }
        }
    }
}
