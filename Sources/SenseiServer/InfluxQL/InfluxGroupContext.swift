import SenseiModels

/// One group of series of one measurement under one SELECT: reads its
/// points and builds its rows.
struct InfluxGroupContext {
    let executor: InfluxSelectExecutor
    let select: InfluxSelect
    let scope: InfluxMeasurementScope
    let group: InfluxGroup
    let range: InfluxTimeRange
    let filter: InfluxExpr?
    /// Fields the WHERE reads: their points are joined in before filtering.
    let filterFields: Set<String>

    /// A row of one series key (tag set) at one time: its fields' values.
    struct JoinedRow {
        var time: Int64
        var tagSet: Int
        var values: [String: InfluxValue]
    }

    /// The range in the store's milliseconds (inclusive), clamped to what it holds.
    func millisecondRange(_ lo: Int64, _ hi: Int64) -> (Int64, Int64) {
        let loMs = lo == InfluxTime.min ? Timestamp.range.lowerBound
            : Swift.max(Timestamp.range.lowerBound, Swift.min(Timestamp.range.upperBound + 1, -((-lo).floorDiv(1_000_000))))
        let hiMs = hi == InfluxTime.max ? Timestamp.range.upperBound
            : Swift.min(Timestamp.range.upperBound, Swift.max(Timestamp.range.lowerBound - 1, hi.floorDiv(1_000_000)))
        return (loMs, hiMs)
    }

    /// The group's tag sets (series keys), in key order.
    var tagSets: [[(key: String, value: String)]] {
        var seen: [String: [(key: String, value: String)]] = [:]
        for series in group.series { seen[series.tags.map { "\($0.key)=\($0.value)" }.joined(separator: ",")] = series.tags }
        return seen.sorted { $0.key < $1.key }.map(\.value)
    }

    /// The points of `fields` from `lo` through `hi`, joined by series key
    /// and time into rows, kept when the WHERE holds, in time order (series
    /// keys in order at one time).
    func joinedRows(_ fields: Set<String>, from lo: Int64, through hi: Int64) throws(InfluxQueryError) -> [JoinedRow] {
        let wanted = fields.union(filterFields)
        let sets = tagSets
        let setKeys = sets.map { $0.map { "\($0.key)=\($0.value)" }.joined(separator: ",") }
        let setIndex = Dictionary(uniqueKeysWithValues: setKeys.enumerated().map { ($1, $0) })
        let chosen = group.series.filter { wanted.contains($0.field) }
        let (loMs, hiMs) = millisecondRange(lo, hi)
        guard loMs <= hiMs, !chosen.isEmpty else { return [] }
        var rows: [Int: [Int64: [String: InfluxValue]]] = [:]  // tag set → time → values
        do {
            try executor.store.influxReadings(of: chosen.map(\.sensorID), from: loMs, through: hiMs) { index, ts, value in
                let series = chosen[index]
                let set = setIndex[series.tags.map { "\($0.key)=\($0.value)" }.joined(separator: ",")] ?? 0
                rows[set, default: [:]][ts * 1_000_000, default: [:]][series.field] = InfluxReducer.typed(value, series.valueType)
            }
        } catch {
            throw InfluxQueryError("reading the store failed: \(error)")
        }
        var out: [JoinedRow] = []
        for (set, byTime) in rows {
            for (time, values) in byTime { out.append(JoinedRow(time: time, tagSet: set, values: values)) }
        }
        out.sort { $0.time != $1.time ? $0.time < $1.time : $0.tagSet < $1.tagSet }
        guard let filter else { return out }
        return out.filter { row in
            let tags = sets[row.tagSet]
            let evaluator = InfluxEvaluator(tagKeys: scope.tagKeys, tag: { key in tags.first { $0.key == key }?.value },
                                            field: { row.values[$0] ?? .null })
            return evaluator.holds(filter)
        }
    }

    /// A raw select: one row per series key and time with a selected value.
    func rawRows(_ columns: [InfluxColumn], fields: Set<String>) throws(InfluxQueryError) -> [[InfluxValue]] {
        let sets = tagSets
        var result: [[InfluxValue]] = []
        for row in try joinedRows(fields, from: range.lo, through: range.hi) {
            let tags = sets[row.tagSet]
            let evaluator = InfluxEvaluator(tagKeys: scope.tagKeys, tag: { key in tags.first { $0.key == key }?.value },
                                            field: { row.values[$0] ?? .null })
            var values: [InfluxValue] = [.time(row.time)]
            var any = false
            for column in columns {
                let value = evaluator.value(column.expr)
                values.append(value)
                if value != .null, column.expr.references.contains(where: { fields.contains($0) }) { any = true }
            }
            if any { result.append(values) }
        }
        return result
    }

    /// The points of one field (all the group's series), in time order.
    func points(of field: String, from lo: Int64, through hi: Int64) throws(InfluxQueryError) -> [InfluxPoint] {
        try joinedRows([field], from: lo, through: hi).compactMap { row in
            row.values[field]?.number.map { InfluxPoint(time: row.time, value: $0) }
        }
    }

    func type(of field: String) -> ValueType { scope.fieldTypes[field] ?? .float }
}
