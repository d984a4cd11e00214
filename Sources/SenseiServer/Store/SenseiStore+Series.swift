import GRDB
import SenseiModels

extension SenseiStore {
    /// Stores the points of ingest paths (line protocol, MQTT) in one group-
    /// commit write: each series' sensor is found through the `series` table
    /// or created (code by `SeriesCode`, labels with `source`), and every
    /// point goes through the same insert as the REST routes (dedup by sensor
    /// and timestamp, receive-time placement, rollups, counts), except that
    /// history (hours old enough to pack) goes straight into packed hours
    /// (`HistoryPacking`): an import's lines are one bulk write. `completion`
    /// runs on the writer thread once the write is durably committed (or
    /// failed): an HTTP worker or the MQTT thread never waits for the disk.
    ///
    /// Partial by default: a refused point (see `SeriesIngestError`) is
    /// listed in the outcome and the others are stored; points of existing
    /// sensors are stored even when the call's new sensors would pass
    /// `maxSensors`, in which case none of them is created and all their
    /// points are refused. `allOrNothing`: the first refusal fails the whole
    /// call with its `SeriesIngestError`, storing nothing.
    ///
    /// Metadata: `name`, `units` and `kind` describe a sensor when it is
    /// created; later, a point's non-nil `name` (`units`, `kind`) replaces the
    /// sensor's as long as it is the one an ingest path gave, never one a
    /// person set (`POST`, `PATCH`).
    /// Labels are set at creation only; `PATCH` owns them after.
    public func ingest(_ points: [SeriesPoint], allOrNothing: Bool = false, receivedAt: Timestamp = .now(),
                       completion: @escaping @Sendable (Result<SeriesIngestOutcome, any Error>) -> Void) {
        ingest(SeriesBatch.grouping(points), allOrNothing: allOrNothing, receivedAt: receivedAt, completion: completion)
    }

    /// `ingest` of points already grouped by series (`SeriesBatch`); a
    /// series given in two batches is one group.
    public func ingest(_ batches: [SeriesBatch], allOrNothing: Bool = false, receivedAt: Timestamp = .now(),
                       completion: @escaping @Sendable (Result<SeriesIngestOutcome, any Error>) -> Void) {
        let work = Self.ingestion(batches, allOrNothing: allOrNothing, receivedAt: receivedAt,
                                  hints: receiveTimeHints, tap: tap, maxSensors: maxSensors)
        groupCommit.submit(work, stored: Self.reportStored) { result in completion(result.map(\.outcome)) }
    }

    /// `ingest`, waiting for the commit: for tests and callers that own their thread.
    @discardableResult
    public func ingest(_ points: [SeriesPoint], allOrNothing: Bool = false,
                       receivedAt: Timestamp = .now()) throws -> SeriesIngestOutcome {
        try groupCommit.write(Self.ingestion(SeriesBatch.grouping(points), allOrNothing: allOrNothing,
                                             receivedAt: receivedAt, hints: receiveTimeHints, tap: tap,
                                             maxSensors: maxSensors),
                              stored: Self.reportStored).outcome
    }

    /// What a series write tells the commit's observers: each sensor's readings.
    private static let reportStored: StoredReport<SeriesWrite> = { write, stored in stored.append(contentsOf: write.stored) }

    private static func ingestion(_ batches: [SeriesBatch], allOrNothing: Bool, receivedAt: Timestamp,
                                  hints: ReceiveTimeHints, tap: ReadingTap, maxSensors: Int)
        -> @Sendable (Database) throws -> SeriesWrite {
        { db in
            try SeriesRules.ingest(batches, allOrNothing: allOrNothing, tap: tap, maxSensors: maxSensors,
                                   through: SQLiteSeriesWriter(db: db, receivedAt: receivedAt, hints: hints))
        }
    }

    /// Finds the sensor of each group's series, updating ingest-owned names,
    /// units and kinds the series now gives; returns the groups without one.
    fileprivate static func resolveSeries(_ groups: inout [SeriesGroup], receivedAt: Timestamp,
                                      in db: Database) throws -> [Int] {
        let lookup = BoundStatement(try db.cachedStatement(sql: """
            SELECT s.id, s.value_type, s.rollups_until, s.code, s.name, s.units, s.name_from_ingest, s.units_from_ingest,
                   s.kind, s.kind_from_ingest
            FROM series JOIN sensors s ON s.id = series.sensor_id WHERE series.identity = ?
            """))
        var missing: [Int] = []
        for index in groups.indices {
            let series = groups[index].series
            lookup.bind(1, series.identity.key)
            let found = try lookup.first { columns in
                let target = WriteTarget(id: columns.int64(0), code: columns.text(3),
                                         valueType: ValueType(rawValue: columns.text(1)) ?? .float,
                                         rollupsUntil: columns.optionalInt64(2))
                // Only read what this series could change.
                let name = SeriesRules.fittedName(series.name).flatMap { columns.int64(6) == 1 && $0 != columns.text(4) ? $0 : nil }
                let units = SeriesRules.fittedUnits(series.units).flatMap { columns.int64(7) == 1 && $0 != columns.text(5) ? $0 : nil }
                let kind = series.kind.flatMap { columns.int64(9) == 1 && $0.rawValue != columns.text(8) ? $0 : nil }
                return (target, name, units, kind)
            }
            guard let (target, name, units, kind) = found else {
                missing.append(index)
                continue
            }
            groups[index].target = target
            if name != nil || units != nil || kind != nil {
                try db.execute(sql: """
                    UPDATE sensors SET name = coalesce(?, name), units = coalesce(?, units), kind = coalesce(?, kind),
                        updated_at = ?
                    WHERE id = ?
                    """, arguments: [name, units, kind?.rawValue, receivedAt.milliseconds, target.id])
            }
        }
        return missing
    }

    fileprivate static func createSensor(for group: inout SeriesGroup, at now: Timestamp, in db: Database) throws {
        let series = group.series
        let taken = try db.cachedStatement(sql: "SELECT 1 FROM sensors WHERE code = ?")
        let code = try SeriesCode.code(preferred: series.preferredCode, identity: series.identity) { candidate in
            try Int.fetchOne(taken, arguments: [candidate]) != nil
        }
        let id = try insertSensor(code: code, name: SeriesRules.fittedName(series.name), units: SeriesRules.fittedUnits(series.units) ?? "",
                                  valueType: series.valueType, kind: series.kind ?? .gauge, fromIngest: true,
                                  at: now, in: db)
        var labels = series.labels
        if labels["source"] == nil { labels["source"] = series.identity.source }
        try insertLabels(SensorLabels.fitted(labels), of: id, in: db)
        try db.execute(sql: "INSERT INTO series (identity, sensor_id) VALUES (?, ?)",
                       arguments: [series.identity.key, id])
        group.target = WriteTarget(id: id, code: code, valueType: series.valueType, rollupsUntil: nil)
    }
}

/// A series write's steps on the SQLite file.
private struct SQLiteSeriesWriter: SeriesWriting {
    let db: Database
    let receivedAt: Timestamp
    let hints: ReceiveTimeHints

    func resolve(_ groups: inout [SeriesGroup]) throws -> [Int] {
        try SenseiStore.resolveSeries(&groups, receivedAt: receivedAt, in: db)
    }

    func sensorCount() throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM sensors")) ?? 0
    }

    func createSensor(for group: inout SeriesGroup) throws {
        try SenseiStore.createSensor(for: &group, at: receivedAt, in: db)
    }

    func insert(_ readings: [ReadingInput], into target: SenseiStore.WriteTarget, keeping kept: inout [Reading]?) throws {
        // Series ingest is where history arrives (an import, a broker's backlog):
        // readings of hours old enough to pack go straight into their blocks.
        try SenseiStore.insert(readings, into: target, receivedAt: receivedAt, hints: hints, keeping: &kept,
                               packingHistory: true, in: db)
    }
}

/// What an ingest write hands `GroupCommit`: the caller's outcome, and what
/// each sensor stored, for the commit's observers (metrics, the live stream).
struct SeriesWrite: Sendable {
    let outcome: SeriesIngestOutcome
    let stored: [StoredReadings]
}
