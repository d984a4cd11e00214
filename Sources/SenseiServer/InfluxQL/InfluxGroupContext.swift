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
        // Ceiling of lo, floor of hi, within what nanoseconds hold: every
        // reading read converts to nanoseconds without overflow.
        let bounds = InfluxTime.millisecondRange
        let loMs = Swift.max(bounds.lowerBound, lo.floorDivided(by: 1_000_000).0 + (lo % 1_000_000 == 0 ? 0 : 1))
        let hiMs = Swift.min(bounds.upperBound, hi.floorDivided(by: 1_000_000).0)
        return (loMs, hiMs)
    }

    /// The group's tag sets (series keys), in key order.
    var tagSets: [[(key: String, value: String)]] {
        var seen: [String: [(key: String, value: String)]] = [:]
        for series in group.series { seen[series.tags.map { "\($0.key)=\($0.value)" }.joined(separator: ",")] = series.tags }
        return seen.sorted { $0.key < $1.key }.map(\.value)
    }

    /// The points of `fields` from `lo` through `hi`, joined by series key
    /// and time into rows, kept when the WHERE holds and (given `present`)
    /// one of those fields has a value there, in the order InfluxDB merges
    /// series (`InfluxMergeOrder`): a series' row exists only where a field
    /// it selects has a point, the WHERE's fields are read at those times.
    /// With `limit`, only the first (or, not `ascending`, last) `limit`
    /// readings of each series are read: enough for that many rows, and a
    /// raw select of a year never holds the year.
    func joinedRows(_ fields: Set<String>, from lo: Int64, through hi: Int64, ascending: Bool = true,
                    limit: Int = .max, present: Set<String>? = nil,
                    aux: [String] = []) throws(InfluxQueryError) -> [JoinedRow] {
        let wanted = fields.union(filterFields)
        let sets = tagSets
        let setKeys = sets.map { $0.map { "\($0.key)=\($0.value)" }.joined(separator: ",") }
        let setIndex = Dictionary(uniqueKeysWithValues: setKeys.enumerated().map { ($1, $0) })
        let chosen = group.series.filter { wanted.contains($0.field) }
        let (loMs, hiMs) = millisecondRange(lo, hi)
        guard loMs <= hiMs, !chosen.isEmpty else { return [] }
        var rows: [Int: [Int64: [String: InfluxValue]]] = [:]  // tag set → time → values
        do {
            try executor.store.influxReadings(of: chosen.map(\.sensorID), from: loMs, through: hiMs, ascending: ascending,
                                              limit: limit) { index, ts, value in
                let series = chosen[index]
                let set = setIndex[series.tags.map { "\($0.key)=\($0.value)" }.joined(separator: ",")] ?? 0
                rows[set, default: [:]][ts * 1_000_000, default: [:]][series.field] = InfluxReducer.typed(value, series.valueType)
            }
        } catch {
            throw InfluxQueryError("reading the store failed: \(error)")
        }
        var streams: [[JoinedRow]] = []
        for set in sets.indices {
            guard let byTime = rows[set] else { continue }
            let tags = sets[set]
            var stream: [JoinedRow] = []
            for time in ascending ? byTime.keys.sorted() : byTime.keys.sorted(by: >) {
                let values = byTime[time]!
                if let present, !present.contains(where: { values[$0] != nil }) { continue }
                if let filter {
                    let evaluator = InfluxEvaluator(tagKeys: scope.tagKeys, tag: { key in tags.first { $0.key == key }?.value },
                                                    field: { values[$0] ?? .null })
                    guard evaluator.holds(filter) else { continue }
                }
                stream.append(JoinedRow(time: time, tagSet: set, values: values))
            }
            streams.append(stream)
        }
        // InfluxDB's tie-break: the rows' auxiliary values (the selected
        // fields and tags, by name) while both are strings, that is tags.
        let auxTags = aux.prefix { scope.tagKeys.contains($0) && scope.fieldTypes[$0] == nil }
        return InfluxMergeOrder.merge(streams, ascending: ascending, time: \.time) { x, y in
            for key in auxTags {
                guard let a = sets[x.tagSet].first(where: { $0.key == key })?.value,
                      let b = sets[y.tagSet].first(where: { $0.key == key })?.value else { return false }
                if a != b { return ascending ? a < b : a > b }
            }
            return false
        }
    }

    /// A raw select: one row per series key and time with a selected value;
    /// at most `InfluxSelectExecutor.maximumRows` + 1 of them from the end
    /// the query reads first (the one more tells the answer is partial).
    func rawRows(_ columns: [InfluxColumn], fields: Set<String>) throws(InfluxQueryError) -> [[InfluxValue]] {
        let sets = tagSets
        var result: [[InfluxValue]] = []
        let most = InfluxSelectExecutor.maximumRows + 1
        let wanted = select.limit > 0 && select.offset < most ? Swift.min(select.offset + Swift.min(select.limit, most), most) : most
        // A WHERE on fields drops rows after reading: then every row is read.
        let limit = filterFields.isEmpty ? wanted : .max
        let aux = Set(columns.flatMap { $0.expr.references }).sorted()
        for row in try joinedRows(fields, from: range.lo, through: range.hi, ascending: !select.descending, limit: limit,
                                  present: fields, aux: aux) {
            let tags = sets[row.tagSet]
            let evaluator = InfluxEvaluator(tagKeys: scope.tagKeys, tag: { key in tags.first { $0.key == key }?.value },
                                            field: { row.values[$0] ?? .null })
            // The row exists (a selected field has a point here): InfluxDB
            // keeps it even when every column is null (`watts + energy`).
            result.append([.time(row.time)] + columns.map { evaluator.value($0.expr) })
        }
        return result
    }

    /// The points of one field (all the group's series), in time order.
    /// Without a WHERE on fields, read straight into points (16 bytes each).
    func points(of field: String, from lo: Int64, through hi: Int64,
                limit: Int = .max) throws(InfluxQueryError) -> [InfluxPoint] {
        guard filterFields.isEmpty else {
            return try joinedRows([field], from: lo, through: hi, present: [field]).compactMap { row in
                row.values[field]?.number.map { InfluxPoint(time: row.time, value: $0) }
            }
        }
        let (loMs, hiMs) = millisecondRange(lo, hi)
        // Series in key order: the merge below replays InfluxDB's.
        let order = Dictionary(tagSets.enumerated().map { ($1.map { "\($0.key)=\($0.value)" }.joined(separator: ","), $0) },
                               uniquingKeysWith: { a, _ in a })
        let series = group.series.filter { $0.field == field }
            .sorted { (order[Self.key($0)] ?? 0) < (order[Self.key($1)] ?? 0) }
        guard loMs <= hiMs, !series.isEmpty else { return [] }
        var streams = [[InfluxPoint]](repeating: [], count: series.count)
        do {
            try executor.store.influxReadings(of: series.map(\.sensorID), from: loMs, through: hiMs, ascending: true,
                                              limit: limit) { index, ts, value in
                streams[index].append(InfluxPoint(time: ts * 1_000_000, value: value))
            }
        } catch {
            throw InfluxQueryError("reading the store failed: \(error)")
        }
        return InfluxMergeOrder.merge(streams, ascending: true, time: \.time)
    }

    private static func key(_ series: InfluxSeries) -> String {
        series.tags.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
    }

    func type(of field: String) -> ValueType { scope.fieldTypes[field] ?? .float }
}
