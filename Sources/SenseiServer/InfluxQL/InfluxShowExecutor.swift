/// SHOW statements over the catalog, answered as InfluxDB 1.8 answers them:
/// one series per measurement for keys and values, sorted, empty results
/// without a series.
struct InfluxShowExecutor {
    let catalog: InfluxCatalog
    let databases: [String]
    let now: Int64

    func run(_ show: InfluxShow) throws(InfluxQueryError) -> [InfluxResultSeries] {
        switch show.kind {
        case .databases:
            return [InfluxResultSeries(name: "databases", columns: ["name"], values: databases.map { [.string($0)] })]
        case .retentionPolicies:
            return [InfluxResultSeries(columns: ["name", "duration", "shardGroupDuration", "replicaN", "default"],
                                       values: [[.string("autogen"), .string("0s"), .string("168h0m0s"), .integer(1), .bool(true)]])]
        case .measurements:
            let names = try matchingSeries(show).map(\.measurement)
            let values = page(Array(Set(names)).sorted(), show).map { [InfluxValue.string($0)] }
            return values.isEmpty ? [] : [InfluxResultSeries(name: "measurements", columns: ["name"], values: values)]
        case .tagKeys:
            return try perMeasurement(show, columns: ["tagKey"]) { series in
                Set(series.flatMap { $0.tags.map(\.key) }).sorted().map { [.string($0)] }
            }
        case .tagValues(let filter):
            return try perMeasurement(show, columns: ["key", "value"]) { series in
                var pairs = Set<[String]>()
                for one in series {
                    for (key, value) in one.tags where filter.matches(key) { pairs.insert([key, value]) }
                }
                return pairs.sorted { $0[0] != $1[0] ? $0[0] < $1[0] : $0[1] < $1[1] }.map { $0.map(InfluxValue.string) }
            }
        case .fieldKeys:
            return try perMeasurement(show, columns: ["fieldKey", "fieldType"]) { series in
                var types: [String: String] = [:]
                for one in series where types[one.field] == nil { types[one.field] = one.fieldType }
                return types.sorted { $0.key < $1.key }.map { [.string($0.key), .string($0.value)] }
            }
        case .series:
            let keys = Set(try matchingSeries(show).map(\.key)).sorted()
            let values = page(keys, show).map { [InfluxValue.string($0)] }
            return values.isEmpty ? [] : [InfluxResultSeries(columns: ["key"], values: values)]
        }
    }

    /// The series of the statement's measurements whose tags meet its WHERE.
    private func matchingSeries(_ show: InfluxShow) throws(InfluxQueryError) -> [InfluxSeries] {
        let (_, filter) = try InfluxCondition.split(show.condition, now: now)
        let measurements = Set(catalog.measurements(matching: show.sources))
        return catalog.series.filter { series in
            guard measurements.contains(series.measurement) else { return false }
            guard let filter else { return true }
            let tagKeys = Set(series.tags.map(\.key))
            let evaluator = InfluxEvaluator(tagKeys: tagKeys, tag: { series.tag($0) }, field: nil)
            return evaluator.holds(filter)
        }
    }

    private func perMeasurement(_ show: InfluxShow, columns: [String],
                                _ rows: ([InfluxSeries]) -> [[InfluxValue]]) throws(InfluxQueryError) -> [InfluxResultSeries] {
        var byMeasurement: [String: [InfluxSeries]] = [:]
        for series in try matchingSeries(show) { byMeasurement[series.measurement, default: []].append(series) }
        return byMeasurement.keys.sorted().compactMap { name in
            let values = page(rows(byMeasurement[name]!), show)
            return values.isEmpty ? nil : InfluxResultSeries(name: name, columns: columns, values: values)
        }
    }

    /// SHOW TAG VALUES WITH KEY = / IN and no WHERE: answered from the
    /// label index, without the catalog.
    static func answersFromLabels(_ show: InfluxShow) -> Bool {
        guard case .tagValues(.equal) = show.kind, show.condition == nil else { return false }
        return true
    }

    static func keys(of show: InfluxShow) -> [String] {
        if case .tagValues(.equal(let keys)) = show.kind { return keys }
        return []
    }

    /// The label index's rows as SHOW TAG VALUES answers them.
    static func tagValues(_ rows: [(measurement: String, key: String, value: String)],
                          _ show: InfluxShow) -> [InfluxResultSeries] {
        var byMeasurement: [String: [[String]]] = [:]
        for row in rows where show.sources.isEmpty || show.sources.contains(where: { $0.matches(row.measurement) }) {
            byMeasurement[row.measurement, default: []].append([row.key, row.value])
        }
        return byMeasurement.keys.sorted().compactMap { name in
            let pairs = byMeasurement[name]!.sorted { $0[0] != $1[0] ? $0[0] < $1[0] : $0[1] < $1[1] }
            let values = InfluxPage.slice(pairs, offset: show.offset, limit: show.limit).map { $0.map(InfluxValue.string) }
            return values.isEmpty ? nil : InfluxResultSeries(name: name, columns: ["key", "value"], values: values)
        }
    }

    private func page<T>(_ items: [T], _ show: InfluxShow) -> [T] {
        InfluxPage.slice(items, offset: show.offset, limit: show.limit)
    }
}

/// OFFSET and LIMIT (0: none) over a list; any numbers a client sends.
enum InfluxPage {
    static func slice<T>(_ items: [T], offset: Int, limit: Int) -> [T] {
        let from = min(max(0, offset), items.count)
        let upTo = limit > 0 && limit < items.count - from ? from + limit : items.count
        return Array(items[from..<upTo])
    }
}
