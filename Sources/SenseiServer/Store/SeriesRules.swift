import SenseiModels

/// The rules of series ingest that need no database, the same on both
/// stores: which points fit their sensor, and what an ingest path's names
/// and units become.
enum SeriesRules {
    /// The batch's readings that fit its sensor; the others are refused. The
    /// batch's own array when all fit, as nearly always.
    static func fitting(_ batch: SeriesBatch, code: String, valueType: ValueType,
                        refused: inout [SeriesRefusal]) -> [ReadingInput] {
        func problem(_ value: Double) -> SeriesIngestError? {
            guard value.isFinite else { return .notFinite }
            return valueType.problem(with: value).map {
                .valueType(code: code, valueType: valueType, problem: $0)
            }
        }
        guard batch.readings.contains(where: { problem($0.value) != nil }) else { return batch.readings }
        var readings: [ReadingInput] = []
        for (reading, position) in zip(batch.readings, batch.positions) {
            if let error = problem(reading.value) {
                refused.append(SeriesRefusal(index: position, error: error))
            } else {
                readings.append(reading)
            }
        }
        return readings
    }

    /// A name as the API would take it: not empty, at most 200 characters, no NUL.
    static func fittedName(_ name: String?) -> String? {
        guard let name = name?.filter({ $0 != "\0" }), !name.isEmpty else { return nil }
        return String(name.prefix(200))
    }

    /// Units as the API would take them: at most 50 characters, no NUL.
    static func fittedUnits(_ units: String?) -> String? {
        units.map { String($0.filter { $0 != "\0" }.prefix(50)) }
    }

    /// One ingest write (`ingest(_:allOrNothing:…)` on either store): finds
    /// or creates each series' sensor, refuses what does not fit, stores the
    /// rest. New sensors that would pass `maxSensors` are not created, and
    /// their points are refused; `allOrNothing`, the first refusal throws.
    static func ingest(_ batches: [SeriesBatch], allOrNothing: Bool, tap: ReadingTap, maxSensors: Int,
                       through writer: some SeriesWriting) throws -> SeriesWrite {
        var gathering = SeriesBatch.Gathering()
        for batch in batches { gathering.add(batch) }
        var groups = gathering.batches.map { SeriesGroup(batch: $0) }
        var outcome = SeriesIngestOutcome()
        var stored: [StoredReadings] = []
        var refused: [SeriesRefusal] = []
        var newGroups = try writer.resolve(&groups)
        if !newGroups.isEmpty { newGroups = try writer.resolveBeforeCreating(&groups, newGroups) }
        if !newGroups.isEmpty {
            if try writer.sensorCount() + newGroups.count > maxSensors {
                for group in newGroups {
                    refused += groups[group].batch.positions.map {
                        SeriesRefusal(index: $0, error: .sensorLimit(limit: maxSensors))
                    }
                }
            } else {
                for group in newGroups { try writer.createSensor(for: &groups[group]) }
                outcome.createdSensors = newGroups.count
            }
        }
        for group in groups {
            guard let target = group.target else { continue }
            let readings = fitting(group.batch, code: target.code, valueType: target.valueType, refused: &refused)
            guard !readings.isEmpty else { continue }
            var kept: [Reading]? = tap.isOn ? [] : nil
            try writer.insert(readings, into: target, keeping: &kept)
            outcome.accepted += readings.count
            stored.append(StoredReadings(sensorID: target.id, code: target.code, count: readings.count,
                                         readings: kept ?? []))
        }
        if allOrNothing, let first = refused.min(by: { $0.index < $1.index }) { throw first.error }
        outcome.refused = refused.sorted { $0.index < $1.index }
        return SeriesWrite(outcome: outcome, stored: stored)
    }
}

/// The points of one series in an ingest write, and the sensor they go to
/// once found or created.
struct SeriesGroup {
    var batch: SeriesBatch
    var target: SenseiStore.WriteTarget?
    var series: Series { batch.series }
}

/// A store's steps of an ingest write (`SeriesRules.ingest`), inside the
/// writer's transaction.
protocol SeriesWriting {
    /// Finds each group's sensor, updating the ingest-owned name, units and
    /// kind the series now gives; returns the groups without one.
    func resolve(_ groups: inout [SeriesGroup]) throws -> [Int]
    /// Before creating sensors for `missing`: with other writers (other
    /// nodes) about, locks creation and looks again; the groups still without one.
    func resolveBeforeCreating(_ groups: inout [SeriesGroup], _ missing: [Int]) throws -> [Int]
    func sensorCount() throws -> Int
    /// Creates the group's sensor (code, name, units, kind, labels, series row).
    func createSensor(for group: inout SeriesGroup) throws
    /// Stores readings that fit the sensor; `kept`, when not nil, gets them as stored.
    func insert(_ readings: [ReadingInput], into target: SenseiStore.WriteTarget, keeping kept: inout [Reading]?) throws
}

extension SeriesWriting {
    /// One writer, as on SQLite: nobody else creates sensors meanwhile.
    func resolveBeforeCreating(_ groups: inout [SeriesGroup], _ missing: [Int]) throws -> [Int] { missing }
}
