import SenseiPostgres
import SenseiModels

/// The readings' write path (`ReadingStore`'s writes): REST, firmware and
/// series ingest, through this node's group commit (`GroupCommit` over
/// `PostgresTransactions`): every write queued meanwhile in one transaction,
/// one commit for the group. Other nodes write the same tables at once, so
/// every statement here is row-level and correct under concurrency.
extension PostgresStore {
    func insertReadings(_ readings: [ReadingInput], into reference: SensorReference, createIfMissing: Bool,
                        receivedAt: Timestamp, completion: @escaping @Sendable (Result<Int, any Error>) -> Void) {
        let (hints, tap, maxSensors, targets) = (receiveTimeHints, self.tap, self.maxSensors, writeTargets)
        let together = PostgresWritesTogether.Part(reference: reference, readings: readings,
                                                   receivedAt: receivedAt, keepsReadings: tap.isOn)
        groupCommit.submit({ session in
            let (sensor, newestPacked) = try Self.resolveForWrite(reference, createIfMissing: createIfMissing,
                                                                  maxSensors: maxSensors, at: receivedAt, in: session)
            targets.remember(WriteTargets.Target(id: sensor.id, code: sensor.code, valueType: sensor.valueType),
                             as: reference)
            for (index, reading) in readings.enumerated() {
                if let problem = sensor.valueType.problem(with: reading.value) {
                    throw StoreError.invalidValue(index: index, reason: problem)
                }
            }
            var stored: [Reading]? = tap.isOn ? [] : nil
            try PostgresReadingInsertion(sensor: sensor, newestPacked: newestPacked, receivedAt: receivedAt,
                                         hints: hints, session: session).insert(readings, keeping: &stored)
            return StoredReadings(sensorID: sensor.id, code: sensor.code, count: readings.count,
                                  readings: stored ?? [])
        }, stored: { $1.append($0) }, together: together) { result in completion(result.map(\.count)) }
    }

    func ingest(_ batches: [SeriesBatch], allOrNothing: Bool, receivedAt: Timestamp,
                completion: @escaping @Sendable (Result<SeriesIngestOutcome, any Error>) -> Void) {
        let (hints, tap, maxSensors) = (receiveTimeHints, self.tap, self.maxSensors)
        groupCommit.submit({ session in
            try SeriesRules.ingest(batches, allOrNothing: allOrNothing, tap: tap, maxSensors: maxSensors,
                                   through: PostgresSeriesWriter(session: session, receivedAt: receivedAt,
                                                                 hints: hints))
        }, stored: { write, stored in stored.append(contentsOf: write.stored) }) { result in
            completion(result.map(\.outcome))
        }
    }

    func ingest(_ points: [SeriesPoint], allOrNothing: Bool, receivedAt: Timestamp,
                completion: @escaping @Sendable (Result<SeriesIngestOutcome, any Error>) -> Void) {
        ingest(SeriesBatch.grouping(points), allOrNothing: allOrNothing, receivedAt: receivedAt, completion: completion)
    }

    /// The columns a write reads of its sensor (`writeTarget(from:)`), the
    /// start of its newest packed hour among them.
    static let writeTargetColumns = """
        s.id, s.value_type, s.code,
        (SELECT max(start) FROM reading_blocks b WHERE b.sensor_id = s.id) AS newest_packed
        """

    static func writeTarget(from row: PGRow) throws -> (SenseiStore.WriteTarget, newestPacked: Int64?) {
        let columns = row
        let target = SenseiStore.WriteTarget(
            id: try columns["id"].decode(Int64.self), code: try columns["code"].decode(String.self),
            valueType: ValueType(rawValue: try columns["value_type"].decode(String.self)) ?? .float,
            rollupsUntil: nil)
        return (target, try columns["newest_packed"].decode(Int64?.self))
    }

    /// The sensor a write goes to, its row locked until the commit (see
    /// `PostgresReadingInsertion`); created (a float named after its code)
    /// when missing and `createIfMissing`.
    private static func resolveForWrite(_ reference: SensorReference, createIfMissing: Bool, maxSensors: Int,
                                        at now: Timestamp,
                                        in session: PostgresSession) throws -> (SenseiStore.WriteTarget, Int64?) {
        func lookup() throws -> (SenseiStore.WriteTarget, Int64?)? {
            let columns = writeTargetColumns
            let query: PGQuery = switch reference {
            case .id(let id): "SELECT \(unescaped: columns) FROM sensors s WHERE s.id = \(id) FOR NO KEY UPDATE OF s"
            case .code(let code):
                "SELECT \(unescaped: columns) FROM sensors s WHERE s.code = \(code) FOR NO KEY UPDATE OF s"
            }
            return try session.row(query).map(writeTarget(from:))
        }
        if let found = try lookup() { return found }
        guard createIfMissing, case .code(let code) = reference else {
            throw StoreError.sensorNotFound(reference)
        }
        // Another node may have made it since the lookup.
        try lockSensorCreation(in: session)
        if let found = try lookup() { return found }
        try requireRoom(for: 1, maxSensors: maxSensors, in: session)
        let id = try insertSensor(code: code, name: nil, units: "", valueType: .float, at: now, in: session)
        return (SenseiStore.WriteTarget(id: id, code: code, valueType: .float, rollupsUntil: nil), nil)
    }
}
