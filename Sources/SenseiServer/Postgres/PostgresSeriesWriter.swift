import SenseiPostgres
import SenseiModels

/// A series write's steps on PostgreSQL (`SeriesRules.ingest` drives them),
/// inside the group's transaction. A class: it keeps each found sensor's
/// newest packed hour from the lookup for the insert.
final class PostgresSeriesWriter: SeriesWriting {
    let session: PostgresSession
    let receivedAt: Timestamp
    let hints: ReceiveTimeHints
    private var newestPacked: [Int64: Int64] = [:]

    init(session: PostgresSession, receivedAt: Timestamp, hints: ReceiveTimeHints) {
        self.session = session
        self.receivedAt = receivedAt
        self.hints = hints
    }

    func resolve(_ groups: inout [SeriesGroup]) throws -> [Int] {
        try resolve(&groups, among: Array(groups.indices))
    }

    /// Another node may have created some of the series since the lookup:
    /// creation is serialised (an advisory lock to the commit), then looked up again.
    func resolveBeforeCreating(_ groups: inout [SeriesGroup], _ missing: [Int]) throws -> [Int] {
        try PostgresStore.lockSensorCreation(in: session)
        return try resolve(&groups, among: missing)
    }

    /// Finds the sensors of the groups at `indices` in one query, their rows
    /// locked in id order (as every node locks them, so that two groups never
    /// wait on each other), and updates the ingest-owned name, units and
    /// kind the series now gives.
    private func resolve(_ groups: inout [SeriesGroup], among indices: [Int]) throws -> [Int] {
        let keys = indices.map { groups[$0].series.identity.key }
        let rows = try session.rows("""
            SELECT series.identity, \(unescaped: PostgresStore.writeTargetColumns), s.name, s.units,
                   s.name_from_ingest, s.units_from_ingest, s.kind, s.kind_from_ingest
            FROM series JOIN sensors s ON s.id = series.sensor_id
            WHERE series.identity = ANY(\(keys)::text[])
            ORDER BY s.id
            FOR NO KEY UPDATE OF s
            """)
        var found: [String: PGRow] = [:]
        for row in rows { found[try row["identity"].decode(String.self)] = row }
        var missing: [Int] = []
        for index in indices {
            let series = groups[index].series
            guard let row = found[series.identity.key] else {
                missing.append(index)
                continue
            }
            let (target, packed) = try PostgresStore.writeTarget(from: row)
            groups[index].target = target
            newestPacked[target.id] = packed
            let columns = row
            // Only what the path gave, where a person did not set it, and only if it changes.
            func changed<T: Equatable & PGDecodable>(_ value: T?, _ column: String, _ flag: String) throws -> T? {
                guard let value, try columns[flag].decode(Bool.self), try columns[column].decode(T.self) != value
                else { return nil }
                return value
            }
            let name = try changed(SeriesRules.fittedName(series.name), "name", "name_from_ingest")
            let units = try changed(SeriesRules.fittedUnits(series.units), "units", "units_from_ingest")
            let kind = try changed(series.kind?.rawValue, "kind", "kind_from_ingest")
            if name != nil || units != nil || kind != nil {
                try session.execute("""
                    UPDATE sensors SET name = coalesce(\(name), name), units = coalesce(\(units), units),
                        kind = coalesce(\(kind), kind), updated_at = \(receivedAt.milliseconds)
                    WHERE id = \(target.id)
                    """)
            }
        }
        return missing
    }

    func sensorCount() throws -> Int {
        Int(try session.row("SELECT count(*) FROM sensors")?.decode(Int64.self) ?? 0)
    }

    func createSensor(for group: inout SeriesGroup) throws {
        let series = group.series
        let code = try SeriesCode.code(preferred: series.preferredCode, identity: series.identity) { candidate in
            try session.row("SELECT 1 FROM sensors WHERE code = \(candidate)") != nil
        }
        let id = try PostgresStore.insertSensor(
            code: code, name: SeriesRules.fittedName(series.name), units: SeriesRules.fittedUnits(series.units) ?? "",
            valueType: series.valueType, kind: series.kind ?? .gauge, fromIngest: true, at: receivedAt, in: session)
        var labels = series.labels
        if labels["source"] == nil { labels["source"] = series.identity.source }
        try PostgresStore.insertLabels(SensorLabels.fitted(labels), of: id, in: session)
        try session.execute("INSERT INTO series (identity, sensor_id) VALUES (\(series.identity.key), \(id))")
        group.target = SenseiStore.WriteTarget(id: id, code: code, valueType: series.valueType, rollupsUntil: nil)
    }

    func insert(_ readings: [ReadingInput], into target: SenseiStore.WriteTarget,
                keeping kept: inout [Reading]?) throws {
        try PostgresReadingInsertion(sensor: target, newestPacked: newestPacked[target.id], receivedAt: receivedAt,
                                     hints: hints, session: session).insert(readings, keeping: &kept)
    }
}
