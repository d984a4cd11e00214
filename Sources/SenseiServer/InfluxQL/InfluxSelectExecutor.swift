import SenseiModels

/// A column of a SELECT: its header and what computes it.
struct InfluxColumn {
    var name: String
    var expr: InfluxExpr
}

/// What one measurement brings to a SELECT: its series, tag keys and field types.
struct InfluxMeasurementScope {
    let name: String
    let series: [InfluxSeries]
    let tagKeys: Set<String>
    let fieldTypes: [String: ValueType]

    init(name: String, series: [InfluxSeries]) {
        self.name = name
        self.series = series
        tagKeys = Set(series.flatMap { $0.tags.map(\.key) })
        var types: [String: ValueType] = [:]
        for one in series where types[one.field] == nil { types[one.field] = one.valueType }
        fieldTypes = types
    }
}

/// Series of one measurement that answer together: those sharing the values
/// of the GROUP BY tags.
struct InfluxGroup {
    var tags: [(key: String, value: String)]
    var series: [InfluxSeries]
}

/// Runs a SELECT over the store: per measurement, per group of series, a raw
/// select, aggregates over windows, or transformations (InfluxDB's `query/`
/// plans the same three shapes).
struct InfluxSelectExecutor {
    let store: any ReadingStore & RollupStore
    let catalog: InfluxCatalog
    let now: Int64
    /// Guards on what one statement may hold, InfluxDB's `max-select-buckets`
    /// and `max-row-limit` set: GROUP BY time windows, and rows of a raw
    /// select or transformation (past it a series ends `"partial": true`, as
    /// InfluxDB marks it). 10,000 rows, InfluxDB 1.x's first default, keep a
    /// raw select of a year within the server's 50 MB: a row is held as a
    /// dictionary of its columns until the answer is written (100,000 held
    /// 60 MB more, measured).
    static let maximumWindows = 100_000
    static let maximumRows = 10_000

    func run(_ select: InfluxSelect) throws(InfluxQueryError) -> [InfluxResultSeries] {
        let (range, filter) = try InfluxCondition.split(select.condition, now: now)
        let shape = try InfluxQueryShape(select)
        var results: [InfluxResultSeries] = []
        let names = catalog.measurements(matching: select.sources)
        // `*` stands for the fields and tags of every measurement named, so
        // that all answer with the same columns (InfluxDB's wildcard).
        let everything = InfluxMeasurementScope(name: "", series: catalog.series.filter { names.contains($0.measurement) })
        for name in names {
            let scope = InfluxMeasurementScope(name: name, series: catalog.series(of: name))
            let columns = try expandColumns(select.fields, scope: everything, raw: shape == .raw,
                                            grouped: Self.groupKeys(select, tagKeys: everything.tagKeys), select: select)
            let fields = Set(columns.flatMap { $0.expr.references }.filter { scope.fieldTypes[$0] != nil })
            guard !fields.isEmpty else { continue }
            try InfluxBooleanCheck.check(columns, types: scope.fieldTypes)
            let filterFields = Set((filter?.references ?? []).filter { scope.fieldTypes[$0] != nil })
            for group in groups(of: scope, tagKeys: everything.tagKeys, select: select, filter: filter,
                                fields: fields.union(filterFields)) {
                let context = InfluxGroupContext(executor: self, select: select, scope: scope, group: group,
                                                 range: range, filter: filter, filterFields: filterFields)
                let rows: [[InfluxValue]]
                switch shape {
                case .raw: rows = try context.rawRows(columns, fields: fields)
                case .aggregate: rows = try context.aggregateRows(columns)
                case .transform: rows = try context.transformRows(columns)
                }
                guard !rows.isEmpty else { continue }
                // A raw select's rows come in their final order (InfluxDB's
                // descending merge is not its ascending one reversed).
                var values = page(shape == .raw || !select.descending ? rows : rows.reversed(), select)
                let partial = values.count > Self.maximumRows
                if partial { values.removeLast(values.count - Self.maximumRows) }
                results.append(InfluxResultSeries(name: name, tags: select.dimensions.isEmpty ? nil : group.tags,
                                                  columns: ["time"] + columns.map(\.name), values: values, partial: partial))
            }
        }
        results.removeAll { $0.values.isEmpty }
        // InfluxDB's merge orders series by name and tags the way it orders
        // time: ORDER BY time DESC gives them last name, last tags first,
        // after SLIMIT and SOFFSET took theirs in ascending order.
        let paged = InfluxPage.slice(results, offset: select.seriesOffset, limit: select.seriesLimit)
        return select.descending ? paged.reversed() : paged
    }

    private func page(_ rows: [[InfluxValue]], _ select: InfluxSelect) -> [[InfluxValue]] {
        InfluxPage.slice(rows, offset: select.offset, limit: select.limit)
    }

    /// The GROUP BY tag keys, then the series meeting the WHERE's tag part
    /// and carrying a wanted field, split by those keys' values (sorted).
    /// GROUP BY * and regexes reach the tag keys of every measurement named
    /// (`tagKeys`): a series without one has it empty, as InfluxDB shows it.
    private func groups(of scope: InfluxMeasurementScope, tagKeys: Set<String>, select: InfluxSelect, filter: InfluxExpr?,
                        fields: Set<String>) -> [InfluxGroup] {
        let keys = Self.groupKeys(select, tagKeys: tagKeys)
        var groups: [[String]: InfluxGroup] = [:]
        for series in scope.series where fields.contains(series.field) {
            if let filter {
                let evaluator = InfluxEvaluator(tagKeys: scope.tagKeys, tag: { series.tag($0) }, field: nil,
                                                fieldKeys: Set(scope.fieldTypes.keys))
                guard evaluator.mayHold(filter) else { continue }
            }
            let values = keys.map { series.tag($0) ?? "" }
            groups[values, default: InfluxGroup(tags: zip(keys, values).map { ($0, $1) }, series: [])].series.append(series)
        }
        return groups.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map(\.value)
    }

    /// The tag keys GROUP BY names (`*` and regexes spelled out), sorted.
    static func groupKeys(_ select: InfluxSelect, tagKeys: Set<String>) -> [String] {
        var keys: [String] = []
        for dimension in select.dimensions {
            switch dimension {
            case .reference(let name): keys.append(name)
            case .wildcard: keys += tagKeys.sorted()
            case .regex(let regex): keys += tagKeys.filter(regex.matches).sorted()
            default: break
            }
        }
        return Array(Set(keys)).sorted()
    }

    /// The SELECT's fields with `*` and regexes spelled out for this
    /// measurement, named as InfluxDB names them (`mean`, `mean_value`, a
    /// duplicate `_1`).
    /// `*` in a raw select is the fields and the tags not grouped by (a
    /// tag grouped by is the series' tag, not a column, in InfluxDB).
    private func expandColumns(_ fields: [InfluxSelectField], scope: InfluxMeasurementScope, raw: Bool,
                               grouped: [String], select: InfluxSelect) throws(InfluxQueryError) -> [InfluxColumn] {
        var columns: [InfluxColumn] = []
        let fieldKeys = scope.fieldTypes.keys.sorted()
        for field in fields {
            switch field.expr.bare {
            case .wildcard:
                // With GROUP BY * or a regex (even one matching nothing), InfluxDB 1.6 gives fields only.
                let byPattern = select.dimensions.contains { if case .wildcard = $0 { true } else if case .regex = $0 { true } else { false } }
                let tags = raw && !byPattern ? scope.tagKeys.subtracting(grouped).sorted() : []
                let names = (fieldKeys + tags).sorted()
                columns += names.map { InfluxColumn(name: $0, expr: .reference($0)) }
            case .regex(let regex):
                columns += fieldKeys.filter(regex.matches).map { InfluxColumn(name: $0, expr: .reference($0)) }
            case .call(let name, let arguments) where arguments.first.map(Self.isPattern) == true:
                // `mean(*)` and the like skip boolean fields, as InfluxDB's wildcard does.
                for key in fieldKeys where Self.matches(arguments[0], key)
                    && !(scope.fieldTypes[key] == .bool && InfluxBooleanCheck.labels[name] != nil) {
                    let call = InfluxExpr.call(name, [.reference(key)] + arguments.dropFirst())
                    columns.append(InfluxColumn(name: (field.alias ?? name) + "_" + key, expr: call))
                }
            default:
                columns.append(InfluxColumn(name: field.alias ?? Self.name(of: field.expr), expr: field.expr))
            }
        }
        var seen: [String: Int] = [:]
        for index in columns.indices {
            let name = columns[index].name
            if let count = seen[name] {
                columns[index].name = "\(name)_\(count)"
                seen[name] = count + 1
            } else {
                seen[name] = 1
            }
        }
        return columns
    }

    private static func isPattern(_ expr: InfluxExpr) -> Bool {
        switch expr {
        case .wildcard, .regex: true
        default: false
        }
    }

    private static func matches(_ pattern: InfluxExpr, _ key: String) -> Bool {
        if case .regex(let regex) = pattern { return regex.matches(key) }
        return true
    }

    /// InfluxDB's `Field.Name()`: a call's name, a reference's, the parts of
    /// arithmetic joined by `_`.
    static func name(of expr: InfluxExpr) -> String {
        switch expr {
        case .reference(let name): name
        case .call(let name, _): name
        case .distinct: "distinct"
        case .paren(let inner): name(of: inner)
        case .binary(_, let lhs, let rhs):
            [name(of: lhs), name(of: rhs)].filter { !$0.isEmpty }.joined(separator: "_")
        default: ""
        }
    }
}

/// Which of InfluxDB's three query shapes a SELECT is; mixing is an error.
enum InfluxQueryShape: Equatable {
    case raw, aggregate, transform

    init(_ select: InfluxSelect) throws(InfluxQueryError) {
        var raw = false, aggregate = false, transform = false
        for field in select.fields {
            switch field.expr.bare {
            case .wildcard, .regex:
                raw = true
                continue
            default:
                break
            }
            if Self.hasFreeReference(field.expr) { raw = true }
            for call in field.expr.calls {
                try Self.check(call.name, call.arguments, interval: select.interval != nil)
                if InfluxTransform.names.contains(call.name) {
                    transform = true
                    if case .call(let inner, let arguments) = call.arguments[0].bare {
                        guard !InfluxTransform.names.contains(inner) else {
                            throw InfluxQueryError("\(call.name) cannot be nested in a transformation")
                        }
                        try Self.check(inner, arguments, interval: false)
                    }
                } else {
                    aggregate = true
                }
            }
        }
        if raw && (aggregate || transform) || (aggregate && transform) {
            throw InfluxQueryError("mixing aggregate and non-aggregate queries is not supported")
        }
        if raw {
            if select.interval != nil { throw InfluxQueryError("GROUP BY requires at least one aggregate function") }
            self = .raw
        } else {
            self = transform ? .transform : .aggregate
        }
    }

    /// A field reference outside any call: a raw value.
    private static func hasFreeReference(_ expr: InfluxExpr) -> Bool {
        switch expr {
        case .reference: true
        case .binary(_, let lhs, let rhs): hasFreeReference(lhs) || hasFreeReference(rhs)
        case .paren(let inner): hasFreeReference(inner)
        default: false
        }
    }

    /// InfluxDB's argument checks, with its messages.
    private static func check(_ name: String, _ arguments: [InfluxExpr], interval: Bool) throws(InfluxQueryError) {
        func count(_ expected: Int) throws(InfluxQueryError) {
            guard arguments.count == expected else {
                throw InfluxQueryError("invalid number of arguments for \(name), expected \(expected), got \(arguments.count)")
            }
        }
        switch name {
        case "count", "mean", "median", "mode", "sum", "min", "max", "first", "last", "spread", "stddev", "distinct",
             "cumulative_sum":
            try count(1)
        case "percentile":
            try count(2)
            switch arguments[1] {
            case .integer, .number: break
            default: throw InfluxQueryError("expected float argument in percentile()")
            }
        case "moving_average":
            try count(2)
            guard case .integer(let n) = arguments[1], n > 1 else {
                throw InfluxQueryError("moving_average window must be greater than 1, got \(arguments.count > 1 ? "\(arguments[1])" : "")")
            }
        case "derivative", "non_negative_derivative", "elapsed", "integral":
            guard (1...2).contains(arguments.count) else {
                throw InfluxQueryError("invalid number of arguments for \(name), expected at least 1 but no more than 2, got \(arguments.count)")
            }
            if arguments.count == 2, case .duration(let unit) = arguments[1] {
                guard unit > 0 else { throw InfluxQueryError("\(name) unit must be positive") }
            } else if arguments.count == 2 {
                throw InfluxQueryError("second argument to \(name) must be a duration, got \(arguments[1])")
            }
        case "difference", "non_negative_difference":
            try count(1)
        default:
            throw InfluxQueryError("undefined function \(name)()")
        }
        if InfluxTransform.names.contains(name) {
            let nested: Bool = if case .call = arguments[0].bare { true } else { false }
            if interval && !nested { throw InfluxQueryError("aggregate function required inside the call to \(name)") }
            if !interval && nested {
                throw InfluxQueryError("\(name) aggregate requires a GROUP BY interval")
            }
        } else {
            switch arguments.first?.bare {
            case .reference, .wildcard, .regex: break
            case .call("distinct", let inner) where name == "count":
                guard inner.count == 1, case .reference = inner[0].bare else {
                    throw InfluxQueryError("expected field argument in distinct()")
                }
            default: throw InfluxQueryError("expected field argument in \(name)()")
            }
        }
    }
}
