import SenseiPostgres
import SenseiModels

/// Reading readings back (`ReadingStore`'s reads): raw pages, every sensor's
/// pages, InfluxQL's raw points, usage. Each walks rows and packed hours
/// together (`PostgresReadingRange`), with the same answers as the SQLite
/// store's.
extension PostgresStore: ReadingStore {
    /// A read of several statements in one snapshot (REPEATABLE READ), so
    /// that an hour packed by another node meanwhile is read once, as rows
    /// or as its block, never both or neither.
    func snapshot<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        try connections.withSession { session in
            try session.transaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY") { try body(session) }
        }
    }

    static func requireSensor(_ reference: SensorReference, in session: PostgresSession) throws -> Sensor {
        guard let sensor = try fetchSensor(reference, in: session) else { throw StoreError.sensorNotFound(reference) }
        return sensor
    }

    func readings(of reference: SensorReference, _ query: ReadingQuery) throws -> (Sensor, [Reading]) {
        try snapshot { session in
            let sensor = try Self.requireSensor(reference, in: session)
            guard query.limit > 0 else { return (sensor, []) }
            let range = PostgresReadingRange(sensorID: sensor.id, lo: query.after?.milliseconds ?? Int64.min,
                                             hi: query.before?.milliseconds ?? Int64.max)
            var page = ReadingPage(query, capacity: sensor.count)
            // Packed hours at either end may hold nothing of the range: two more.
            let expected = query.offset + query.limit + 2
            try range.forEach(ascending: query.ascending, expected: expected, in: session) { page.take($0, $1) }
            return (sensor, page.readings)
        }
    }

    func readingsOfEverySensor(_ query: BulkQuery,
                               _ visit: (BulkSensor, Int64, Double) throws -> Void) throws -> BulkCursor? {
        let lo = query.after?.milliseconds ?? Int64.min
        let hi = query.before?.milliseconds ?? Int64.max
        return try snapshot { session in
            var remaining = query.limit
            var next: BulkCursor?
            let sensors = try Self.bulkSensors(from: query.cursor, newestAtLeast: lo, labeled: query.labels,
                                               in: session)
            // One more than fits: the first reading of the next page, if any.
            for run in Self.runs(of: sensors, fitting: { remaining + 1 }) {
                let ranges = run.map { sensor in
                    PostgresReadingRange(sensorID: sensor.id, lo: query.cursor?.sensorID == sensor.id
                                             ? max(lo, query.cursor!.position) : lo, hi: hi)
                }
                try PostgresRangesTogether(ranges: ranges).forEach(limit: remaining + 1, in: session) { index, ts, value in
                    guard remaining > 0 else {
                        next = BulkCursor(sensorID: run[run.startIndex + index].id, position: ts)
                        return false
                    }
                    try visit(run[run.startIndex + index].sensor, ts, value)
                    remaining -= 1
                    return true
                }
                if next != nil { break }
            }
            return next
        }
    }

    /// A bulk read's sensor with how many readings it holds in all (at least
    /// as many as in any range).
    struct CountedSensor {
        let sensor: BulkSensor
        let count: Int64
        var id: Int64 { sensor.id }
    }

    /// The sensors in runs read with one statement each: consecutive sensors
    /// whose readings together fit what the page still takes (`fitting`, asked
    /// before each run), at most 1,000; a sensor with more is a run of its
    /// own, walked page by page until the page is full.
    static func runs(of sensors: [CountedSensor], fitting: @escaping () -> Int) -> some Sequence<ArraySlice<CountedSensor>> {
        var start = sensors.startIndex
        return AnySequence {
            AnyIterator { () -> ArraySlice<CountedSensor>? in
                guard start < sensors.endIndex else { return nil }
                let room = Int64(fitting())
                var end = start + 1, total = sensors[start].count
                while end < sensors.endIndex, end - start < 1_000, total + sensors[end].count <= room {
                    total += sensors[end].count
                    end += 1
                }
                defer { start = end }
                return sensors[start..<end]
            }
        }
    }

    /// The sensors from the cursor's on, in id order, that carry every label
    /// of `labels` and whose newest reading is at or after `lo` (a sensor
    /// silent since is passed over from the sensors table alone).
    static func bulkSensors(from cursor: BulkCursor?, newestAtLeast lo: Int64,
                            labeled labels: [(key: String, value: String)],
                            in session: PostgresSession) throws -> [CountedSensor] {
        var query: PGQuery = "SELECT id, code, reading_count FROM sensors s WHERE id >= \(cursor?.sensorID ?? Int64.min) AND latest_ts >= \(lo)"
        appendLabelFilter(labels, to: &query, hasWhere: true)
        query.sql += " ORDER BY id"
        return try session.rows(query).map { row in
            let (id, code, count) = try row.decode((Int64, String, Int64).self)
            return CountedSensor(sensor: BulkSensor(id: id, code: code), count: count)
        }
    }

    func influxReadings(of sensorIDs: [Int64], from lo: Int64, through hi: Int64, ascending: Bool, limit: Int,
                        _ body: (_ sensor: Int, _ ts: Int64, _ value: Double) throws -> Void) throws {
        try snapshot { session in
            for (index, id) in sensorIDs.enumerated() {
                var count = 0
                try PostgresReadingRange(sensorID: id, lo: lo, hi: hi)
                    .forEach(ascending: ascending, expected: min(limit, 4_096), in: session) { ts, value in
                        try body(index, ts, value)
                        count += 1
                        return count < limit
                    }
            }
        }
    }

    func influxFirstTime(of sensorIDs: [Int64]) throws -> Int64? {
        try snapshot { session in
            var first: Int64?
            for id in sensorIDs {
                try PostgresReadingRange(sensorID: id, lo: Timestamp.range.lowerBound, hi: Timestamp.range.upperBound)
                    .forEach(ascending: true, expected: 1, in: session) { ts, _ in
                        first = Swift.min(first ?? ts, ts)
                        return false
                    }
            }
            return first
        }
    }

    /// As `SenseiStore.usage`: one pass oldest first, rows one by one, a
    /// packed hour by its summary when that is enough, else decoded.
    func usage(of reference: SensorReference, _ query: UsageQuery) throws -> UsageReport {
        try snapshot { session in
            let sensor = try Self.requireSensor(reference, in: session)
            let first = query.boundaries[0], end = query.boundaries[query.boundaries.count - 1]
            var accumulator = UsageAccumulator(kind: sensor.kind, boundaries: query.boundaries, maxGap: query.maxGap)
            // The reading before the range, and the one after it, carry their
            // share of the pieces that straddle its ends.
            try PostgresReadingRange(sensorID: sensor.id, lo: Timestamp.range.lowerBound, hi: first - 1)
                .forEach(ascending: false, expected: 1, in: session) { ts, value in
                    accumulator.add(time: ts, value: value)
                    return false
                }
            let range = PostgresReadingRange(sensorID: sensor.id, lo: first, hi: Timestamp.range.upperBound)
            // A local function, so the accumulator stays unboxed (see SenseiStore.usage).
            func feed(_ ts: Int64, _ value: Double) -> Bool {
                accumulator.add(time: ts, value: value)
                return ts < end
            }
            try range.forEachRowOrBlock(ascending: true, summaries: true, expected: 1_024, in: session,
                                        row: feed) { block in
                if let summary = block.summary {
                    if accumulator.add(summary) { return true }
                    // Past the range, its first reading is the one after it.
                    if summary.firstTime >= end { return feed(summary.firstTime, summary.firstValue) }
                }
                return try range.forEachReading(in: block, ascending: true, feed)
            }
            return UsageReport(sensor: sensor, query: query, accumulator: accumulator)
        }
    }
}
