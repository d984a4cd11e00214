import SenseiPostgres
import SenseiModels

/// The group's common writes in one statement: writes of readings to
/// sensors this node wrote to before (their id and type remembered in
/// `WriteTargets`), each either device-timestamped or receive-time.
///
/// Why: every statement is a round trip from the writer thread (through
/// postgres-nio's event loop it was about 0.5 ms, against PostgreSQL's
/// 0.03-0.1 ms of work; through libpq 0.1-0.2 ms), and a single POST took
/// four (look up, probe the free milliseconds, insert, count), so a group of
/// 16 took 30 ms. This statement locks each
/// sensor's row as the lookup does (`FOR NO KEY UPDATE`) and checks what the
/// lookup and the probe would have: the sensor is still there with that
/// type, no packed hour is written into, a receive-time reading's
/// millisecond is free. A sensor that fails a check changes nothing: its
/// writes take the full path (`PostgresReadingInsertion`), after, in the same
/// transaction. Each sensor's writes are merged in their order first, so a
/// later value on a millisecond wins, as it does one write after another.
struct PostgresWritesTogether {
    /// A write's part that may go with the others (`GroupCommit.submit(together:)`).
    struct Part: Sendable {
        let reference: SensorReference
        let readings: [ReadingInput]
        let receivedAt: Timestamp
        /// Whether its output lists the readings (the tap is on).
        let keepsReadings: Bool

        var receiveTime: Bool { readings.first?.timestamp == nil }

        /// Whether it may go with the others to `target`: readings all of
        /// one kind, each a value the remembered type takes (else the full
        /// path reads the type afresh, another node may have changed it,
        /// and says why).
        func fits(_ target: WriteTargets.Target) -> Bool {
            !readings.isEmpty && !readings.contains { ($0.timestamp == nil) != receiveTime }
                && !readings.contains { target.valueType.problem(with: $0.value) != nil }
        }
    }

    /// One sensor's writes in the group, merged.
    private struct Plan {
        let target: WriteTargets.Target
        let receiveTime: Bool
        var placed = PlacedReadings()
        var newest: (ts: Int64, value: Double)?
        var nextFree: Int64?
        /// The latest receive time of its writes: the sensor's `updated_at`.
        var receivedAt: Int64 = .min
        /// Each write's index among the parts, and where its readings landed.
        var writes: [(part: Int, at: Range<Int>)] = []

        mutating func add(_ part: Part, index: Int, hints: ReceiveTimeHints) {
            receivedAt = max(receivedAt, part.receivedAt.milliseconds)
            let from = placed.order.count
            for reading in part.readings {
                let ts: Int64
                if let timestamp = reading.timestamp {
                    ts = timestamp.milliseconds
                } else {
                    ts = max(nextFree ?? .min, hints.start(for: target.id, receivedAt: part.receivedAt.milliseconds))
                    nextFree = ts + 1
                }
                placed.place(ts, reading.value)
                if newest.map({ ts >= $0.ts }) ?? true { newest = (ts, reading.value) }
            }
            writes.append((index, from..<placed.order.count))
        }
    }

    let hints: ReceiveTimeHints
    let targets: WriteTargets
    let session: PostgresSession

    /// For each part, its write's output (`StoredReadings`), or nil when the
    /// write must take the full path. A write left alone holds back the later
    /// writes to its sensor (by id or code, as far as it is known), and a write
    /// of another kind (nil: series ingest, alert changes) every later one:
    /// they run after it. Throws when another node took a receive-time
    /// millisecond between the check and the insert: the group is then run
    /// again, each write on its own.
    func perform(_ parts: [(any Sendable)?]) throws -> [(any Sendable)?] {
        var plans: [Int64: Plan] = [:]
        var order: [Int64] = []
        var heldIDs = Set<Int64>(), heldCodes = Set<String>()
        for (index, offered) in parts.enumerated() {
            guard let part = offered as? Part else { break }
            let target = targets[part.reference]
            if let target, part.fits(target), !heldIDs.contains(target.id), !heldCodes.contains(target.code),
               plans[target.id].map({ $0.receiveTime == part.receiveTime && $0.target.valueType == target.valueType }) ?? true {
                if plans[target.id] == nil {
                    plans[target.id] = Plan(target: target, receiveTime: part.receiveTime)
                    order.append(target.id)
                }
                plans[target.id]!.add(part, index: index, hints: hints)
                continue
            }
            if let target {
                heldIDs.insert(target.id)
                heldCodes.insert(target.code)
            }
            switch part.reference {
            case .id(let id): heldIDs.insert(id)
            case .code(let code): heldCodes.insert(code)
            }
        }
        let ready = order.compactMap { plans[$0] }
        guard !ready.isEmpty else { return parts.map { _ in nil } }
        let applied = try insert(ready)
        var outputs: [(any Sendable)?] = parts.map { _ in nil }
        for plan in ready where applied.contains(plan.target.id) {
            if let nextFree = plan.nextFree { hints.record(nextFree, for: plan.target.id) }
            for (index, at) in plan.writes {
                let part = parts[index] as! Part
                let readings = part.keepsReadings
                    ? zip(plan.placed.order[at], part.readings).map { Reading(timestamp: Timestamp(milliseconds: $0), value: $1.value) }
                    : []
                outputs[index] = StoredReadings(sensorID: plan.target.id, code: plan.target.code,
                                                count: part.readings.count, readings: readings)
            }
        }
        return outputs
    }

    /// The sensors whose readings were stored.
    private func insert(_ plans: [Plan]) throws -> Set<Int64> {
        var rowSensors: [Int64] = [], rowTimestamps: [Int64] = [], rowValues: [Double] = []
        for plan in plans {
            rowSensors += repeatElement(plan.target.id, count: plan.placed.timestamps.count)
            rowTimestamps += plan.placed.timestamps
            rowValues += plan.placed.values
        }
        // Rows newer than their sensor's newest reading (`latest_ts`, read
        // under the row lock: no other writer of that sensor is between)
        // cannot meet a row already there, so they go in with a plain insert,
        // without the cost of `ON CONFLICT`'s speculative insertion; were one
        // there after all, the unique key refuses it and the group runs
        // again the full way. Only the others are checked and merged.
        let rows = try session.rows("""
            WITH want AS (
                SELECT * FROM unnest(\(plans.map(\.target.id))::int8[], \(plans.map(\.target.valueType.rawValue))::text[],
                                     \(plans.map { PackedHours.start(of: $0.placed.timestamps.min()!) })::int8[],
                                     \(plans.map(\.receiveTime))::bool[],
                                     \(plans.map { $0.newest!.ts })::int8[], \(plans.map { $0.newest!.value })::float8[],
                                     \(plans.map(\.receivedAt))::int8[])
                    AS w(sensor_id, value_type, hour, receive_time, newest_ts, newest_value, received_at)),
            locked AS (
                SELECT w.*, coalesce(x.latest_ts, -9223372036854775808) AS latest_ts
                FROM want w JOIN sensors x ON x.id = w.sensor_id AND x.value_type = w.value_type
                ORDER BY w.sensor_id
                FOR NO KEY UPDATE OF x),
            r AS (
                SELECT r.*, r.ts > l.latest_ts AS fresh
                FROM unnest(\(rowSensors)::int8[], \(rowTimestamps)::int8[], \(rowValues)::float8[]) AS r(sensor_id, ts, value)
                JOIN locked l ON l.sensor_id = r.sensor_id),
            go AS (
                SELECT l.* FROM locked l
                WHERE NOT EXISTS (SELECT 1 FROM reading_blocks b WHERE b.sensor_id = l.sensor_id AND b.start >= l.hour)
                  AND (NOT l.receive_time OR NOT EXISTS (
                      SELECT 1 FROM r JOIN readings e ON e.sensor_id = r.sensor_id AND e.ts = r.ts
                      WHERE r.sensor_id = l.sensor_id AND NOT r.fresh))),
            fresh AS (
                INSERT INTO readings (sensor_id, ts, value)
                SELECT r.sensor_id, r.ts, r.value FROM r JOIN go ON go.sensor_id = r.sensor_id WHERE r.fresh),
            given AS (
                INSERT INTO readings (sensor_id, ts, value)
                SELECT r.sensor_id, r.ts, r.value FROM r JOIN go ON go.sensor_id = r.sensor_id
                WHERE NOT r.fresh AND NOT go.receive_time
                ON CONFLICT (sensor_id, ts) DO UPDATE SET value = EXCLUDED.value WHERE readings.value <> EXCLUDED.value
                RETURNING sensor_id, xmax = 0 AS inserted),
            received AS (
                INSERT INTO readings (sensor_id, ts, value)
                SELECT r.sensor_id, r.ts, r.value FROM r JOIN go ON go.sensor_id = r.sensor_id
                WHERE NOT r.fresh AND go.receive_time
                ON CONFLICT DO NOTHING
                RETURNING sensor_id),
            added AS (
                SELECT sensor_id, count(*) AS n
                FROM (SELECT r.sensor_id FROM r JOIN go USING (sensor_id) WHERE r.fresh
                      UNION ALL SELECT sensor_id FROM given WHERE inserted
                      UNION ALL SELECT sensor_id FROM received) a
                GROUP BY sensor_id),
            counted AS (
                UPDATE sensors x SET
                    reading_count = x.reading_count + coalesce(a.n, 0),
                    latest_value = CASE WHEN x.latest_ts IS NULL OR go.newest_ts >= x.latest_ts
                                        THEN go.newest_value ELSE x.latest_value END,
                    latest_ts = CASE WHEN x.latest_ts IS NULL OR go.newest_ts >= x.latest_ts
                                     THEN go.newest_ts ELSE x.latest_ts END,
                    updated_at = go.received_at
                FROM go LEFT JOIN added a ON a.sensor_id = go.sensor_id
                WHERE x.id = go.sensor_id
                RETURNING x.id)
            SELECT go.sensor_id, go.receive_time,
                   (SELECT count(*) FROM received WHERE received.sensor_id = go.sensor_id),
                   (SELECT count(*) FROM r WHERE r.sensor_id = go.sensor_id AND NOT r.fresh)
            FROM go
            """)
        var applied = Set<Int64>()
        for row in rows {
            let (id, receiveTime, received, checked) = try row.decode((Int64, Bool, Int64, Int64).self)
            // Another node wrote on one of these milliseconds since the check.
            if receiveTime, received != checked { throw PostgresWritesTogether.Raced() }
            applied.insert(id)
        }
        return applied
    }

    struct Raced: Error {}
}
