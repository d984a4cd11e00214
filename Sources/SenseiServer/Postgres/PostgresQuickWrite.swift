import PostgresNIO
import SenseiModels
import Synchronization

/// The common write in one statement: to a sensor this node wrote to before
/// (its id and value type remembered in `WriteTargets`), device-timestamped
/// readings or a single receive-time one, into no packed hour.
///
/// Why: every statement is a round trip from the writer thread through
/// NIO's event loop, about 0.5 ms here against PostgreSQL's 0.03-0.1 ms of
/// work, so a single POST's four statements (look up, probe the free
/// milliseconds, insert, count) made a group of 16 take 30 ms. This
/// statement locks the sensor's row as the lookup does (`FOR NO KEY
/// UPDATE`), and checks what the lookup would have: the sensor is still
/// there with that type, no packed hour is written into, the receive-time
/// millisecond is free. When one of those fails it changes nothing, and the
/// write takes the full path (`PostgresReadingInsertion`) in the same
/// transaction.
struct PostgresQuickWrite {
    let target: WriteTargets.Target
    let receivedAt: Timestamp
    let hints: ReceiveTimeHints
    let session: PostgresSession

    /// Stores `readings` if the quick path applies; nil when the full path must.
    func insert(_ readings: [ReadingInput], keeping stored: inout [Reading]?) throws -> Bool {
        guard let first = readings.first else { return false }
        // Several receive-time readings in one write probe a run of free
        // milliseconds: the full path's job.
        let receiveTime = first.timestamp == nil
        guard receiveTime ? readings.count == 1 : !readings.contains(where: { $0.timestamp == nil }) else { return false }
        // A value the remembered type refuses goes the full path, which
        // reads the type afresh (another node may have changed it) and says why.
        guard !readings.contains(where: { target.valueType.problem(with: $0.value) != nil }) else { return false }
        var placed = PlacedReadings()
        var newest: (ts: Int64, value: Double)?
        for reading in readings {
            let ts = reading.timestamp?.milliseconds ?? hints.start(for: target.id, receivedAt: receivedAt.milliseconds)
            placed.place(ts, reading.value)
            if newest.map({ ts >= $0.ts }) ?? true { newest = (ts, reading.value) }
        }
        guard let newest, let earliest = placed.timestamps.min() else { return false }
        let row = try session.row("""
            WITH s AS (
                SELECT id FROM sensors WHERE id = \(target.id) AND value_type = \(target.valueType.rawValue)
                FOR NO KEY UPDATE),
            go AS (
                SELECT s.id FROM s WHERE NOT EXISTS (
                    SELECT 1 FROM reading_blocks b
                    WHERE b.sensor_id = s.id AND b.start >= \(PackedHours.start(of: earliest)))),
            written AS (
                INSERT INTO readings (sensor_id, ts, value)
                SELECT go.id, r.ts, r.value
                FROM go, unnest(\(placed.timestamps)::int8[], \(placed.values)::float8[]) AS r(ts, value)
                ON CONFLICT (sensor_id, ts) \(unescaped: receiveTime ? "DO NOTHING" : """
                    DO UPDATE SET value = EXCLUDED.value WHERE readings.value <> EXCLUDED.value
                    """)
                RETURNING xmax = 0 AS inserted),
            counted AS (
                UPDATE sensors SET
                    reading_count = reading_count + (SELECT count(*) FROM written WHERE inserted),
                    latest_value = CASE WHEN latest_ts IS NULL OR \(newest.ts) >= latest_ts
                                        THEN \(newest.value) ELSE latest_value END,
                    latest_ts = CASE WHEN latest_ts IS NULL OR \(newest.ts) >= latest_ts
                                     THEN \(newest.ts) ELSE latest_ts END,
                    updated_at = \(receivedAt.milliseconds)
                WHERE id = (SELECT id FROM go) AND (\(!receiveTime) OR EXISTS (SELECT 1 FROM written))
                RETURNING 1)
            SELECT (SELECT count(*) FROM counted)
            """)
        guard try row?.decode(Int64.self) == 1 else { return false }
        if receiveTime { hints.record(newest.ts + 1, for: target.id) }
        stored = stored.map { _ in
            readings.indices.map { Reading(timestamp: Timestamp(milliseconds: placed.order[$0]), value: readings[$0].value) }
        }
        return true
    }
}

/// Readings placed at their milliseconds, one per millisecond, the later
/// value winning; `order` keeps each input's millisecond, in input order.
struct PlacedReadings {
    var timestamps: [Int64] = []
    var values: [Double] = []
    var order: [Int64] = []
    private var index: [Int64: Int] = [:]

    mutating func place(_ ts: Int64, _ value: Double) {
        order.append(ts)
        if let at = index[ts] {
            values[at] = value
        } else {
            index[ts] = timestamps.count
            timestamps.append(ts)
            values.append(value)
        }
    }
}

/// What a write needs of the sensors this node wrote to lately, by the
/// reference its writes name them with: never trusted, only tried (see
/// `PostgresQuickWrite`), so another node's change or deletion is noticed.
final class WriteTargets: Sendable {
    struct Target: Sendable {
        let id: Int64
        let code: String
        let valueType: ValueType
    }

    /// Past this many, the map starts again empty: a bound on memory, not a cache policy.
    static let limit = 50_000
    private let targets = Mutex<[SensorReference: Target]>([:])

    subscript(reference: SensorReference) -> Target? {
        targets.withLock { $0[reference] }
    }

    func remember(_ target: Target, as reference: SensorReference) {
        targets.withLock { targets in
            if targets.count >= Self.limit { targets.removeAll(keepingCapacity: true) }
            targets[reference] = target
        }
    }
}
