import SenseiPostgres

/// The readings of several sensors' ranges (each its own `lo`, one `hi`)
/// in one statement, sensors in the order given, each oldest first: what a
/// bulk read of many small sensors asks, in one round trip instead of one a
/// sensor (10,000 sensors of three readings took 22.8 s sensor by sensor).
///
/// Each sensor's rows and packed hours come through a `LATERAL` subquery
/// with its own limit, as `PostgresReadingRange` pages one sensor. A sensor
/// that fills its limit may hold more: the rest is walked on its own,
/// after the last key seen, before the next sensor's readings. A single
/// range is walked alone from the start.
struct PostgresRangesTogether {
    let ranges: [PostgresReadingRange]

    /// Calls `body` with (index into `ranges`, ts, value) for each reading,
    /// in order, until it returns false. `limit`: the rows and packed hours
    /// read of each sensor in the statement (at most a walk's largest page).
    func forEach(limit: Int, in session: PostgresSession,
                 _ body: (Int, Int64, Double) throws -> Bool) throws {
        guard let hi = ranges.first?.hi, ranges.contains(where: { $0.lo <= $0.hi }) else { return }
        precondition(ranges.allSatisfy { $0.hi == hi }, "ranges read together share their upper bound")
        let limit = min(max(1, limit), PostgresReadingRange.largestPage)
        // One sensor alone: its own walk, whose pages grow as it goes on.
        if ranges.count == 1 {
            return try ranges[0].forEach(ascending: true, expected: limit, in: session) { try body(0, $0, $1) }
        }
        var query = PGQuery(unsafeSQL: """
            SELECT s.n, r.key, r.value, r.data
            FROM unnest($1::int8[], $2::int8[], $3::int8[]) WITH ORDINALITY AS s(id, rows_from, blocks_from, n)
            CROSS JOIN LATERAL (
                (SELECT ts AS key, value, NULL::bytea AS data FROM readings
                 WHERE sensor_id = s.id AND ts >= s.rows_from AND ts <= $4 ORDER BY ts LIMIT $5)
                UNION ALL
                (SELECT start, NULL, data FROM reading_blocks
                 WHERE sensor_id = s.id AND start >= s.blocks_from AND start <= $4 ORDER BY start LIMIT $5)
                ORDER BY key LIMIT $5
            ) r
            ORDER BY s.n, r.key
            """)
        // An empty range as no sensor's id.
        query.binds.append(ranges.map { $0.lo <= $0.hi ? $0.sensorID : -1 })
        query.binds.append(ranges.map(\.lo))
        query.binds.append(ranges.map { PackedHours.start(of: $0.lo) })
        query.binds.append(hi)
        query.binds.append(Int64(limit))

        // The sensor being handed on, how many items of it the statement
        // gave, and its last key.
        var current = -1, items = 0, lastKey = Int64.min
        /// A sensor whose items filled the limit: the rest of it, walked alone.
        func finishCurrent() throws -> Bool {
            guard current >= 0, items >= limit else { return true }
            var going = true
            try ranges[current].forEach(ascending: true, expected: limit, resumingAfter: lastKey, in: session) {
                going = try body(current, $0, $1)
                return going
            }
            return going
        }
        for row in try session.rows(query) {
            let columns = row
            let index = Int(try columns[0].decode(Int64.self)) - 1
            if index != current {
                guard try finishCurrent() else { return }
                current = index
                items = 0
            }
            let key = try columns[1].decode(Int64.self)
            items += 1
            lastKey = key
            if let data = try columns[3].decode([UInt8]?.self) {
                let block = PostgresReadingRange.PackedHour(start: key, data: data, summary: nil)
                guard try ranges[index].forEachReading(in: block, ascending: true, { try body(index, $0, $1) })
                else { return }
            } else {
                guard try body(index, key, try columns[2].decode(Double.self)) else { return }
            }
        }
        _ = try finishCurrent()
    }
}
