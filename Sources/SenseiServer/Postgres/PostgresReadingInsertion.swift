import SenseiPostgres
import SenseiModels

/// One write of one sensor's readings on PostgreSQL, inside the group's
/// transaction: the same rules as SQLite's `ReadingInsertion` (a later value
/// on a taken timestamp replaces the earlier one; a reading without one lands
/// at `receivedAt` or the next free millisecond; packed hours written into
/// are unpacked first), in a few set-based statements instead of a row each.
///
/// The sensor's row is locked from the lookup (`FOR NO KEY UPDATE`) until
/// the commit, so a write and a compaction of the same sensor, on any node,
/// take turns: neither packs an hour the other is writing into.
struct PostgresReadingInsertion {
    let sensor: SenseiStore.WriteTarget
    /// The start of the sensor's newest packed hour, from the lookup.
    let newestPacked: Int64?
    let receivedAt: Timestamp
    let hints: ReceiveTimeHints
    let session: PostgresSession

    /// Stores `readings` (values already checked); `stored`, when not nil,
    /// gets them as stored, in the write's order.
    func insert(_ readings: [ReadingInput], keeping stored: inout [Reading]?) throws {
        try unpackHoursWritten(readings)
        // Placed in the write's order, as SQLite inserts them: a receive-time
        // reading skips the device timestamps given before it, and one given
        // after it on the same millisecond replaces its value.
        var explicit = PlacedReadings(), receiveTime = PlacedReadings()
        var earlierTimestamps = Set<Int64>()
        var taken: TakenMilliseconds?
        var next: Int64?
        var newest: StampedReading?
        for reading in readings {
            let ts: Int64
            if let timestamp = reading.timestamp {
                ts = timestamp.milliseconds
                explicit.place(ts, reading.value)
                earlierTimestamps.insert(ts)
            } else {
                if taken == nil { taken = TakenMilliseconds(sensorID: sensor.id) }
                var candidate = next ?? hints.start(for: sensor.id, receivedAt: receivedAt.milliseconds)
                while try earlierTimestamps.contains(candidate) || taken!.contains(candidate, in: session) {
                    candidate += 1
                }
                ts = candidate
                next = ts + 1
                receiveTime.place(ts, reading.value)
            }
            if newest.map({ ts >= $0.ts }) ?? true { newest = StampedReading(ts: ts, value: reading.value) }
            stored?.append(Reading(timestamp: Timestamp(milliseconds: ts), value: reading.value))
        }
        guard let newest else { return }
        var added = 0
        if !receiveTime.timestamps.isEmpty {
            let moved = try insertReceiveTime(receiveTime, after: next!)
            added = receiveTime.timestamps.count
            if !moved.isEmpty {
                // Another node took some of these milliseconds meanwhile.
                stored = stored?.map { kept in
                    moved[kept.timestamp.milliseconds].map { Reading(timestamp: Timestamp(milliseconds: $0), value: kept.value) } ?? kept
                }
                next = moved.values.max().map { Swift.max($0 + 1, next!) }
            }
        }
        if let next { hints.record(next, for: sensor.id) }
        try session.execute("""
            WITH written AS (
                INSERT INTO readings (sensor_id, ts, value)
                SELECT \(sensor.id), ts, value
                FROM unnest(\(explicit.timestamps)::int8[], \(explicit.values)::float8[]) AS r(ts, value)
                ON CONFLICT (sensor_id, ts) DO UPDATE SET value = EXCLUDED.value
                    WHERE readings.value <> EXCLUDED.value
                RETURNING xmax = 0 AS inserted)
            UPDATE sensors SET
                reading_count = reading_count + \(added) + (SELECT count(*) FROM written WHERE inserted),
                latest_value = CASE WHEN latest_ts IS NULL OR \(newest.ts) >= latest_ts
                                    THEN \(newest.value) ELSE latest_value END,
                latest_ts = CASE WHEN latest_ts IS NULL OR \(newest.ts) >= latest_ts
                                 THEN \(newest.ts) ELSE latest_ts END,
                updated_at = \(receivedAt.milliseconds)
            WHERE id = \(sensor.id)
            """)
    }

    /// Inserts the receive-time readings where they were placed. One that
    /// finds its millisecond taken after all (a write committed on another
    /// node since the look) moves on past `after`; returns where each such
    /// one went.
    private func insertReceiveTime(_ placed: PlacedReadings, after: Int64) throws -> [Int64: Int64] {
        let inserted = try session.rows("""
            INSERT INTO readings (sensor_id, ts, value)
            SELECT \(sensor.id), ts, value
            FROM unnest(\(placed.timestamps)::int8[], \(placed.values)::float8[]) AS r(ts, value)
            ON CONFLICT DO NOTHING
            RETURNING ts
            """)
        guard inserted.count < placed.timestamps.count else { return [:] }
        let landed = Set(try inserted.map { try $0.decode(Int64.self, at: 0) })
        var moved: [Int64: Int64] = [:]
        var candidate = after
        for (ts, value) in zip(placed.timestamps, placed.values) where !landed.contains(ts) {
            while try session.execute("""
                INSERT INTO readings (sensor_id, ts, value) VALUES (\(sensor.id), \(candidate), \(value))
                ON CONFLICT DO NOTHING
                """) == 0 {
                candidate += 1
            }
            moved[ts] = candidate
            candidate += 1
        }
        return moved
    }

    /// Unpacks the packed hours the readings may land in: nothing to do
    /// when the write is newer than every packed hour, as nearly every write is.
    private func unpackHoursWritten(_ readings: [ReadingInput]) throws {
        guard let newestPacked else { return }
        var hours = Set<Int64>()
        for reading in readings {
            guard let ts = reading.timestamp?.milliseconds else { continue }
            let hour = PackedHours.start(of: ts)
            if hour <= newestPacked { hours.insert(hour) }
        }
        try PostgresPackedHours.unpack(sensorID: sensor.id, hours: Array(hours), in: session)
        // A receive-time reading lands at `receivedAt` or later.
        if readings.contains(where: { $0.timestamp == nil }),
           PackedHours.start(of: receivedAt.milliseconds) <= newestPacked {
            try PostgresPackedHours.unpack(sensorID: sensor.id, from: receivedAt.milliseconds, through: .max,
                                           in: session)
        }
    }

    /// The sensor's rows' milliseconds from where receive-time readings
    /// start, read a window at a time as the placing walks on.
    private struct TakenMilliseconds {
        let sensorID: Int64
        private var from = Int64.max
        private var until = Int64.min
        private var taken = Set<Int64>()
        private static let window: Int64 = 4_096

        init(sensorID: Int64) {
            self.sensorID = sensorID
        }

        mutating func contains(_ ts: Int64, in session: PostgresSession) throws -> Bool {
            if ts < from || ts >= until {
                from = ts
                until = ts &+ Self.window
                if until < from { until = .max }
                taken = Set(try session.rows("""
                    SELECT ts FROM readings WHERE sensor_id = \(sensorID) AND ts >= \(from) AND ts < \(until)
                    """).map { try $0.decode(Int64.self) })
            }
            return taken.contains(ts)
        }
    }
}
