import GRDB
import SenseiModels

/// Device batches, the common case, inserted a chunk of readings per
/// statement: one multi-row INSERT costs SQLite about 40 % of the same rows
/// inserted one statement each (measured on this schema), which is most of a
/// batch's cost on the writer.
///
/// Only for chunks that cannot collide with anything: every reading carries
/// a timestamp, strictly increasing (no repeats within the chunk), and the
/// sensor holds no reading between the first and the last — checked with one
/// index probe inside the writer's transaction, where nothing else writes.
/// Anything else goes row by row, with its replacements and moves.
enum ChunkInsert {
    static let size = 100

    /// Inserts the chunk and returns its readings as stored, or nil
    /// (nothing done) when the chunk does not qualify.
    static func run(_ chunk: ArraySlice<ReadingInput>, sensorID: Int64,
                    in db: Database) throws -> [StampedReading]? {
        guard chunk.count == size else { return nil }
        var stamped: [StampedReading] = []
        stamped.reserveCapacity(size)
        for reading in chunk {
            guard let ts = reading.timestamp?.milliseconds, ts > stamped.last?.ts ?? .min else { return nil }
            stamped.append(StampedReading(ts: ts, value: reading.value))
        }
        guard let first = stamped.first, let last = stamped.last else { return nil }
        let probe = BoundStatement(try db.cachedStatement(sql: """
            SELECT 1 FROM readings WHERE sensor_id = ? AND ts >= ? AND ts <= ? LIMIT 1
            """))
        probe.bind(1, sensorID)
        probe.bind(2, first.ts)
        probe.bind(3, last.ts)
        guard try probe.first({ _ in true }) == nil else { return nil }

        let insert = BoundStatement(try db.cachedStatement(sql: sql))
        insert.bind(1, sensorID)
        var parameter: Int32 = 2
        for reading in stamped {
            insert.bind(parameter, reading.ts)
            insert.bind(parameter + 1, reading.value)
            parameter += 2
        }
        try insert.run()
        return stamped
    }

    /// `INSERT … VALUES (?1, ?2, ?3), (?1, ?4, ?5), …`: the sensor bound once.
    private static let sql = "INSERT INTO readings (sensor_id, ts, value) VALUES "
        + (0..<size).map { "(?1, ?\(2 + 2 * $0), ?\(3 + 2 * $0))" }.joined(separator: ", ")
}
