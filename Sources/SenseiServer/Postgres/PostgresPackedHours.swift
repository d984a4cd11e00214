import SenseiPostgres
import SenseiModels

/// A sensor's packed hours in PostgreSQL (`reading_blocks`): packing an hour
/// of rows into a block with its rollup (count, sum, min, max) and usage
/// summary, and unpacking blocks back into rows. The block format is
/// `ReadingBlock`'s, as in SQLite; an hour is wholly packed or wholly rows.
enum PostgresPackedHours {
    /// Packs the sensor's rows of the hour starting at `hour`; returns how
    /// many, or nil (nothing packed) when there are more than `atMost`.
    static func pack(sensorID: Int64, hour: Int64, atMost: Int, in session: PostgresSession) throws -> Int? {
        let end = hour + PackedHours.width
        let rows = try session.rows("""
            SELECT ts, value FROM readings WHERE sensor_id = \(sensorID) AND ts >= \(hour) AND ts < \(end)
            ORDER BY ts LIMIT \(atMost + 1)
            """)
        guard rows.count <= atMost else { return nil }
        var timestamps: [Int64] = [], values: [Double] = []
        timestamps.reserveCapacity(rows.count)
        values.reserveCapacity(rows.count)
        for row in rows {
            let (ts, value) = try row.decode((Int64, Double).self)
            timestamps.append(ts)
            values.append(value)
        }
        guard let summary = UsageSummary(timestamps: timestamps, values: values) else { return 0 }
        let data = ReadingBlock.encode(timestamps: timestamps, values: values)
        let count = Int32(timestamps.count)
        let sum = values.reduce(0, +), min = values.min()!, max = values.max()!
        try session.execute("""
            INSERT INTO reading_blocks (sensor_id, start, count, data, sum, min, max,
                                        first_ts, first_value, last_ts, last_value, integral, longest_gap, increase)
            VALUES (\(sensorID), \(hour), \(count), \(data), \(sum), \(min), \(max),
                    \(summary.firstTime), \(summary.firstValue), \(summary.lastTime), \(summary.lastValue),
                    \(summary.integral), \(summary.longestGap), \(summary.increase))
            """)
        try session.execute("""
            DELETE FROM readings WHERE sensor_id = \(sensorID) AND ts >= \(hour) AND ts < \(end)
            """)
        return timestamps.count
    }

    /// Unpacks the sensor's packed hours starting at `hours`.
    static func unpack(sensorID: Int64, hours: [Int64], in session: PostgresSession) throws {
        guard !hours.isEmpty else { return }
        try restore(sensorID: sensorID, blocks: session.rows("""
            DELETE FROM reading_blocks WHERE sensor_id = \(sensorID) AND start = ANY(\(hours)::int8[]) RETURNING data
            """), in: session)
    }

    /// Unpacks every packed hour of the sensor from the one holding `lo`
    /// through the one holding `hi`.
    static func unpack(sensorID: Int64, from lo: Int64, through hi: Int64, in session: PostgresSession) throws {
        guard lo <= hi else { return }
        try restore(sensorID: sensorID, blocks: session.rows("""
            DELETE FROM reading_blocks
            WHERE sensor_id = \(sensorID) AND start >= \(PackedHours.start(of: lo)) AND start <= \(hi)
            RETURNING data
            """), in: session)
    }

    /// Puts deleted blocks' readings back into `readings`.
    private static func restore(sensorID: Int64, blocks: PGResult, in session: PostgresSession) throws {
        var timestamps: [Int64] = [], values: [Double] = []
        for row in blocks {
            let block = try ReadingBlock.decode(try row.decode([UInt8].self))
            timestamps += block.timestamps
            values += block.values
        }
        guard !timestamps.isEmpty else { return }
        try session.execute("""
            INSERT INTO readings (sensor_id, ts, value)
            SELECT \(sensorID), ts, value FROM unnest(\(timestamps)::int8[], \(values)::float8[]) AS r(ts, value)
            ON CONFLICT DO NOTHING
            """)
    }
}
