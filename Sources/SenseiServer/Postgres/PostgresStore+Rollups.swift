import SenseiPostgres
import SenseiModels

/// Charts and aggregates (`RollupStore`) without rollup tables: a packed
/// hour's block row carries the hour's count, sum, min and max, which serve
/// wherever the whole hour falls in one span; the rows not yet packed (about
/// a day a sensor) are added up by the query, and only blocks cut by a span's
/// edge are decoded. Answers equal the SQLite store's but for the order
/// doubles are summed in (tests allow 1e-9 relative on sums and means).
extension PostgresStore: RollupStore {
    /// As `SenseiStore.buckets`: `BucketSpans` cuts the range; one statement
    /// gives the rows per span, the whole packed hours per span, and the
    /// blocks of the hours cut by a span's edge or the range's ends.
    func buckets(of reference: SensorReference, after: Timestamp, before: Timestamp,
                 count: Int) throws -> (Sensor, [Bucket]) {
        try read { session in
            let sensor = try Self.requireSensor(reference, in: session)
            guard after <= before, count >= 1 else { return (sensor, []) }
            let spans = BucketSpans(after: after.milliseconds, before: before.milliseconds, count: count)
            let range = PostgresReadingRange(sensorID: sensor.id, lo: spans.after, hi: spans.before)
            var aggregates = Array(repeating: Aggregate.empty, count: count)
            for row in try session.rows(Self.bucketParts(of: sensor.id, spans)) {
                let (span, n, sum, min, max, data) = try row.decode(
                    (Int64?, Int64?, Double?, Double?, Double?, [UInt8]?).self)
                if let data {
                    let block = PostgresReadingRange.PackedHour(start: 0, data: data, summary: nil)
                    _ = try range.forEachReading(in: block, ascending: true) { ts, value in
                        aggregates[spans.span(of: ts)].add(value)
                        return true
                    }
                } else if let span, let n, let sum, let min, let max {
                    aggregates[Int(span)].merge(Aggregate(count: Int(n), sum: sum, min: min, max: max))
                }
            }
            return (sensor, spans.buckets(from: aggregates))
        }
    }

    /// Columns span, count, sum, min, max (rows and whole packed hours) or
    /// data (a cut block). A block is whole when its first and last reading
    /// lie in the range and in one span; one without a summary is cut.
    private static func bucketParts(of sensorID: Int64, _ spans: BucketSpans) -> PGQuery {
        let span = { (ts: String) in "least((\(ts) - $2) * $4 / $5, $4 - 1)" }
        let whole = "coalesce(first_ts >= $2 AND last_ts <= $3 AND \(span("first_ts")) = \(span("last_ts")), false)"
        var query = PGQuery(unsafeSQL: """
            SELECT \(span("ts")) AS span, count(*) AS count, sum(value) AS sum, min(value) AS min,
                   max(value) AS max, NULL::bytea AS data
            FROM readings WHERE sensor_id = $1 AND ts >= $2 AND ts <= $3 GROUP BY 1
            UNION ALL
            SELECT \(span("first_ts")), sum(count), sum(sum), min(min), max(max), NULL
            FROM reading_blocks WHERE sensor_id = $1 AND start >= $6 AND start <= $3 AND \(whole) GROUP BY 1
            UNION ALL
            SELECT NULL, NULL, NULL, NULL, NULL, data
            FROM reading_blocks WHERE sensor_id = $1 AND start >= $6 AND start <= $3 AND NOT \(whole)
            """)
        query.binds.append(sensorID)
        query.binds.append(spans.after)
        query.binds.append(spans.before)
        query.binds.append(spans.count)
        query.binds.append(Swift.max(spans.length, 1))
        query.binds.append(PackedHours.start(of: spans.after))
        return query
    }

    func aggregates(of reference: SensorReference, level: RollupLevel, after: Timestamp?, before: Timestamp?,
                    limit: Int) throws -> (Sensor, [SpanAggregate]) {
        try snapshot { session in
            let sensor = try Self.requireSensor(reference, in: session)
            // Within the timestamps' range, so aligning a bound cannot overflow.
            let lo = after?.milliseconds ?? Timestamp.range.lowerBound
            let hi = before?.milliseconds ?? Timestamp.range.upperBound
            let rows = try Self.aggregateRows(of: sensor.id, level: level, from: lo, through: hi, limit: limit,
                                              in: session)
            return (sensor, rows.map(\.wire))
        }
    }

    /// The readings of the rows of `level` starting in [lo, hi]: from the
    /// first whole row at or after lo, through the end of the row holding hi.
    static func aggregateBounds(level: RollupLevel, from lo: Int64, through hi: Int64) -> (first: Int64, last: Int64) {
        (level.start(of: lo) == lo ? lo : level.start(of: lo) + level.width, level.start(of: hi) + level.width - 1)
    }

    /// The rows of `level` starting in [lo, hi] (milliseconds within
    /// `Timestamp.range`), oldest first, at most `limit`, folded from the
    /// readings (a packed hour's decoded, as SQLite finds its minutes and
    /// the minute of its extremes).
    static func aggregateRows(of sensorID: Int64, level: RollupLevel, from lo: Int64, through hi: Int64,
                              limit: Int, in session: PostgresSession) throws -> [SpanRow] {
        guard lo <= hi, limit >= 1 else { return [] }
        let (first, last) = aggregateBounds(level: level, from: lo, through: hi)
        var rows: [SpanRow] = []
        try PostgresReadingRange(sensorID: sensorID, lo: first, hi: last)
            .forEach(ascending: true, expected: Swift.min(limit, 4_096), in: session) { ts, value in
                if rows.count == limit, level.start(of: ts) != rows[limit - 1].start { return false }
                rows.fold(ts, value, level: level)
                return true
            }
        return rows
    }

    func aggregatesOfEverySensor(_ query: BulkQuery, level: RollupLevel,
                                 _ visit: (BulkSensor, SpanAggregate) throws -> Void) throws -> BulkCursor? {
        let lo = query.after?.milliseconds ?? Timestamp.range.lowerBound
        let hi = query.before?.milliseconds ?? Timestamp.range.upperBound
        return try snapshot { session in
            var page = AggregatePage(limit: query.limit)
            let sensors = try Self.bulkSensors(from: query.cursor, newestAtLeast: lo, labeled: query.labels,
                                               in: session)
            // A row starting at or after `lo` holds readings from `lo` on.
            func from(_ sensor: CountedSensor) -> Int64 {
                query.cursor?.sensorID == sensor.id ? max(lo, query.cursor!.position) : lo
            }
            // A sensor's readings are at least as many as its rows: a run's
            // readings that fit the page are rows that fit it.
            for run in Self.runs(of: sensors, fitting: { page.remaining + 1 }) {
                let ranges = run.map { sensor in
                    let bounds = Self.aggregateBounds(level: level, from: from(sensor), through: hi)
                    return PostgresReadingRange(sensorID: sensor.id, lo: bounds.first, hi: bounds.last)
                }
                var current = run.startIndex, rows: [SpanRow] = []
                var full = false
                try PostgresRangesTogether(ranges: ranges).forEach(limit: page.remaining + 1, in: session) { index, ts, value in
                    if run.startIndex + index != current {
                        guard try page.hand(rows, of: run[current].sensor, to: visit) else {
                            full = true
                            return false
                        }
                        current = run.startIndex + index
                        rows = []
                    }
                    // One more row than fits is the next page's first, as
                    // `aggregateRows` stops: its start is all that is needed.
                    if rows.count == page.remaining + 1, level.start(of: ts) != rows[page.remaining].start { return false }
                    rows.fold(ts, value, level: level)
                    return true
                }
                guard !full, try page.hand(rows, of: run[current].sensor, to: visit) else { return page.next }
            }
            return page.next
        }
    }

    /// Rows as one piece a minute (an hour when `hourly`), counted by the
    /// query; with `hourly`, each packed hour wholly in [lo, hi] as its
    /// block's columns; every other packed hour decoded, a piece a reading.
    /// A piece starts at its first reading, so it lies in [lo, hi].
    func influxPieces(of sensorIDs: [Int64], from lo: Int64, through hi: Int64, hourly: Bool,
                      _ body: (_ sensor: Int, _ start: Int64, _ count: Int, _ sum: Double, _ min: Double,
                               _ max: Double) -> Void) throws {
        guard lo <= hi else { return }
        let width = hourly ? RollupLevel.hour.width : RollupLevel.minute.width
        try snapshot { session in
            for (index, id) in sensorIDs.enumerated() {
                let range = PostgresReadingRange(sensorID: id, lo: lo, hi: hi)
                let whole = "($6 AND coalesce(first_ts >= $2 AND last_ts <= $3, false))"
                var query = PGQuery(unsafeSQL: """
                    SELECT min(ts) AS start, count(*) AS count, sum(value) AS sum, min(value) AS min,
                           max(value) AS max, NULL::bytea AS data
                    FROM readings WHERE sensor_id = $1 AND ts >= $2 AND ts <= $3 GROUP BY ts - (ts % $4 + $4) % $4
                    UNION ALL
                    SELECT first_ts, count, sum, min, max, NULL
                    FROM reading_blocks WHERE sensor_id = $1 AND start >= $5 AND start <= $3 AND \(whole)
                    UNION ALL
                    SELECT start, NULL, NULL, NULL, NULL, data
                    FROM reading_blocks WHERE sensor_id = $1 AND start >= $5 AND start <= $3 AND NOT \(whole)
                    ORDER BY 1
                    """)
                query.binds.append(id)
                query.binds.append(lo)
                query.binds.append(hi)
                query.binds.append(width)
                query.binds.append(PackedHours.start(of: lo))
                query.binds.append(hourly)
                for row in try session.rows(query) {
                    let (start, n, sum, min, max, data) = try row.decode(
                        (Int64, Int64?, Double?, Double?, Double?, [UInt8]?).self)
                    if let data {
                        let block = PostgresReadingRange.PackedHour(start: start, data: data, summary: nil)
                        _ = try range.forEachReading(in: block, ascending: true) { ts, value in
                            body(index, ts, 1, value, value, value)
                            return true
                        }
                    } else if let n, let sum, let min, let max {
                        body(index, start, Int(n), sum, min, max)
                    }
                }
            }
        }
    }
}
