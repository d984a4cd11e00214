import GRDB
import Testing
import SenseiModels
@testable import SenseiServer

/// The buckets as docs/design.md ("Readings") defines them, from the readings alone: one
/// GROUP BY, no rollups.
func rawBuckets(_ store: SenseiStore, sensorID: Int64, after: Int64, before: Int64,
                count: Int) throws -> [Bucket] {
    let length = before - after
    return try store.pool.read { db in
        try Row.fetchAll(db, sql: """
            SELECT CASE WHEN ?3 = 0 THEN 0 ELSE min((ts - ?1) * ?2 / ?3, ?2 - 1) END AS span, avg(value), min(value), max(value), count(*)
            FROM readings WHERE sensor_id = ?4 AND ts BETWEEN ?1 AND ?5
            GROUP BY span ORDER BY span
            """, arguments: [after, count, length, sensorID, before]
        ).map { row in
            let span: Int64 = row[0]
            // The first millisecond t with (t - after) * count / length == span.
            var start = after + span * length / Int64(count)
            while length > 0, (start - after) * Int64(count) / length < span { start += 1 }
            return Bucket(timestamp: Timestamp(milliseconds: start), mean: row[1], min: row[2], max: row[3],
                          count: row[4])
        }
    }
}

/// Sums and means may differ in their last bits (doubles added in another
/// order), by far less than 1e-9 of the largest magnitude they come from:
/// relative to that, not to the result, because a mean near zero is the
/// difference of larger values and has no relative precision to keep.
func nearlyEqual(_ a: Double, _ b: Double, scale: Double) -> Bool {
    abs(a - b) <= 1e-9 * Swift.max(abs(a), abs(b), scale)
}

/// Same spans, counts, mins and maxes; means equal, or nearly (see `nearlyEqual`).
func expectSameBuckets(_ actual: [Bucket], _ expected: [Bucket], exactMeans: Bool = false, _ context: String,
                       sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(actual.count == expected.count, "\(context): \(actual.count) buckets, expected \(expected.count)",
            sourceLocation: sourceLocation)
    for (a, e) in zip(actual, expected) {
        let same = a.timestamp == e.timestamp && a.count == e.count && a.min == e.min && a.max == e.max
            && (exactMeans ? a.mean == e.mean : nearlyEqual(a.mean, e.mean, scale: Swift.max(abs(e.min), abs(e.max))))
        #expect(same, "\(context): \(a) != \(e)", sourceLocation: sourceLocation)
        if !same { return }
    }
}

/// Every rollup row equals the aggregate of its readings, and no rollup row
/// lacks readings: the invariant the insert path keeps. Only readings before
/// their sensor's rollup frontier (`rollups_until`) are rolled up; a row for
/// a later minute or hour fails the check.
func expectRollupsMatchReadings(_ store: SenseiStore, _ context: String,
                                sourceLocation: SourceLocation = #_sourceLocation) throws {
    for level in RollupLevel.allCases {
        let (stored, computed) = try store.pool.read { db in
            let stored = try Row.fetchAll(db, sql: """
                SELECT sensor_id, start, count, sum, min, max FROM \(level.table) ORDER BY sensor_id, start
                """)
            let computed = try Row.fetchAll(db, sql: """
                SELECT sensor_id, ts - ((ts % ?1) + ?1) % ?1 AS start, count(*), sum(value), min(value), max(value)
                FROM readings JOIN sensors ON sensors.id = readings.sensor_id
                WHERE ts < sensors.rollups_until
                GROUP BY sensor_id, start ORDER BY sensor_id, start
                """, arguments: [level.width])
            return (stored, computed)
        }
        #expect(stored.count == computed.count,
                "\(context): \(level.table) has \(stored.count) rows, readings make \(computed.count)",
                sourceLocation: sourceLocation)
        for (s, c) in zip(stored, computed) {
            let scale = Double(c[2] as Int) * Swift.max(abs(c[4] as Double), abs(c[5] as Double))
            let same = s[0] as Int64 == c[0] as Int64 && s[1] as Int64 == c[1] as Int64
                && s[2] as Int == c[2] as Int && nearlyEqual(s[3], c[3], scale: scale)
                && s[4] as Double == c[4] as Double && s[5] as Double == c[5] as Double
            #expect(same, "\(context): \(level.table) row \(s) != \(c)", sourceLocation: sourceLocation)
            if !same { return }
        }
    }
}
