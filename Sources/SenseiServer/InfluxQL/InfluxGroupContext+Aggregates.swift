import SenseiModels

/// Aggregates over windows: GROUP BY time's windows, or one window for the
/// whole range. mean, sum, count, min and max over whole minutes come from
/// the rollups; everything else from the points.
extension InfluxGroupContext {
    typealias Window = (start: Int64, end: Int64)

    /// The windows from `lo` through `hi` (nil: the query's range, its lower
    /// bound the group's first point, its upper bound now), or the one
    /// window of a query without GROUP BY time.
    func windows(from lo: Int64? = nil, through hi: Int64? = nil) throws(InfluxQueryError) -> [Window] {
        guard let (every, offset) = select.interval else {
            return [(range.lo, range.hasUpperBound ? range.hi + 1 : range.hi)]
        }
        var first = lo ?? range.lo
        if lo == nil && !range.hasLowerBound {
            let ids = group.series.map(\.sensorID)
            let found: Int64?
            do { found = try executor.store.influxFirstTime(of: ids) } catch { throw InfluxQueryError("\(error)") }
            guard let found, InfluxTime.millisecondRange.contains(found) else { return [] }
            first = found * 1_000_000
        }
        let last = hi ?? (range.hasUpperBound ? range.hi : executor.now)
        var windows: [Window] = []
        var window = InfluxTime.window(of: first, every: every, offset: offset, zone: select.timeZone)
        while window.start <= last {
            windows.append(window)
            guard windows.count <= InfluxSelectExecutor.maximumWindows else {
                throw InfluxQueryError("max-select-buckets limit exceeded: (\(windows.count)/\(InfluxSelectExecutor.maximumWindows))")
            }
            guard window.end < InfluxTime.max else { break }
            window = InfluxTime.window(of: window.end, every: every, offset: offset, zone: select.timeZone)
        }
        return windows
    }

    /// Index of the window holding `t` (windows sorted, contiguous).
    static func index(of t: Int64, in windows: [Window]) -> Int? {
        var low = 0, high = windows.count
        while low < high {
            let middle = (low + high) / 2
            if windows[middle].end <= t { low = middle + 1 } else { high = middle }
        }
        return low < windows.count && windows[low].start <= t ? low : nil
    }

    /// One call's results per window.
    func reduce(_ name: String, _ arguments: [InfluxExpr], over windows: [Window],
                from lo: Int64, through hi: Int64) throws(InfluxQueryError) -> [[InfluxReduced]] {
        if name == "count", case .call("distinct", let inner) = arguments.first?.bare,
           case .reference(let field) = inner.first?.bare {
            // count(distinct(f)): how many values a window holds, each once.
            return try reduce("distinct", [.reference(field)], over: windows, from: lo, through: hi).map { values in
                values.isEmpty ? [] : [InfluxReduced(value: .integer(Int64(values.count)))]
            }
        }
        guard case .reference(let field) = arguments.first?.bare else { return windows.map { _ in [] } }
        let type = type(of: field)
        if InfluxReducer.fromMoments.contains(name), filterFields.isEmpty, alignedTo(60_000_000_000, windows),
           select.interval != nil || !["min", "max"].contains(name) {
            return try momentsPerWindow(field, windows, from: lo, through: hi).map { moments in
                moments.value(name, type: type).map { [InfluxReduced(value: $0)] } ?? []
            }
        }
        let points = try points(of: field, from: lo, through: hi)
        if name == "integral" {
            let unit: Int64 = if arguments.count > 1, case .duration(let value) = arguments[1] { value } else { 1_000_000_000 }
            let sums = InfluxTransform.integral(points, unit: unit, windows: select.interval == nil ? nil : windows)
            return windows.map { window in
                (select.interval == nil ? sums[0] : sums[window.start]).map { [InfluxReduced(value: .float($0))] } ?? []
            }
        }
        let argument = arguments.count > 1 ? Self.number(arguments[1]) : nil
        var results: [[InfluxReduced]] = []
        var cursor = 0
        for window in windows {
            let start = cursor
            while cursor < points.count, points[cursor].time < window.end || select.interval == nil { cursor += 1 }
            results.append(InfluxReducer.reduce(name, points[start..<cursor], type: type, argument: argument))
        }
        return results
    }

    /// Whether every boundary between windows falls on a multiple of
    /// `width`, so that a rollup row of that width lies in one window (the
    /// first window's start and the last's end lie outside the points read).
    private func alignedTo(_ width: Int64, _ windows: [Window]) -> Bool {
        guard select.interval != nil else { return true }
        return windows.dropFirst().allSatisfy { $0.start % width == 0 }
    }

    private static func number(_ expr: InfluxExpr) -> Double? {
        switch expr {
        case .integer(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }

    /// Count, sum, min and max per window from the store's pieces.
    private func momentsPerWindow(_ field: String, _ windows: [Window], from lo: Int64,
                                  through hi: Int64) throws(InfluxQueryError) -> [InfluxMoments] {
        var moments = [InfluxMoments](repeating: InfluxMoments(), count: windows.count)
        let ids = group.series.filter { $0.field == field }.map(\.sensorID)
        let (loMs, hiMs) = millisecondRange(lo, hi)
        guard loMs <= hiMs, !windows.isEmpty else { return moments }
        let hourly = alignedTo(3_600_000_000_000, windows)
        do {
            try executor.store.influxPieces(of: ids, from: loMs, through: hiMs, hourly: hourly) { _, start, count, sum, min, max in
                let index = select.interval == nil ? 0 : Self.index(of: start * 1_000_000, in: windows)
                guard let index else { return }
                moments[index].add(count: count, sum: sum, min: min, max: max)
            }
        } catch {
            throw InfluxQueryError("reading the store failed: \(error)")
        }
        return moments
    }

    /// The last instant an aggregate reads: the WHERE's, else now with
    /// GROUP BY time (InfluxDB's end time), else unbounded.
    var upperBound: Int64 { range.hasUpperBound || select.interval == nil ? range.hi : executor.now }

    /// The rows of an aggregate query: per window, each column's value, then fill.
    func aggregateRows(_ columns: [InfluxColumn]) throws(InfluxQueryError) -> [[InfluxValue]] {
        let windows = try windows()
        guard !windows.isEmpty else { return [] }
        var reduced: [String: [[InfluxReduced]]] = [:]
        for column in columns {
            for call in column.expr.calls where reduced[Self.key(call)] == nil {
                reduced[Self.key(call)] = try reduce(call.name, call.arguments, over: windows,
                                                    from: range.lo, through: upperBound)
            }
        }
        // A lone selector without GROUP BY time shows its point's time.
        let calls = columns.flatMap { $0.expr.calls }
        let selectorTime = select.interval == nil && calls.count == 1 && InfluxReducer.selectors.contains(calls[0].name)
        var rows: [[InfluxValue?]] = []
        var times: [Int64] = []
        // Each column's calls' results, looked up once, not per window.
        let columnResults = columns.map { column in column.expr.calls.map { reduced[Self.key($0)]! } }
        let integralOnly = calls.allSatisfy { $0.name == "integral" }
        for (index, window) in windows.enumerated() {
            // integral() without GROUP BY time shows the epoch, whatever the range (as InfluxDB).
            let time = select.interval == nil ? (range.hasLowerBound && !integralOnly ? range.lo : 0) : window.start
            // distinct gives several values a window: one row each.
            let height = columnResults.map { results in results.map { $0[index].count }.max() ?? 1 }.max() ?? 1
            if height == 0 {
                times.append(time)
                rows.append(columns.map { _ in nil })
                continue
            }
            for line in 0..<height {
                var rowTime = time
                let values: [InfluxValue?] = columns.indices.map { column in
                    var next = 0
                    return evaluate(columns[column].expr) { _ in
                        // Calls come in the order `calls` lists them.
                        let results = columnResults[column][next][index]
                        next += 1
                        guard line < results.count else { return nil }
                        if selectorTime, let at = results[line].time { rowTime = at }
                        return results[line].value
                    }
                }
                times.append(rowTime)
                rows.append(values)
            }
        }
        guard rows.contains(where: { $0.contains { $0 != nil } }) else { return [] }
        // count() fills empty windows with 0, but not for a field this
        // measurement lacks (`count(*)` over several): InfluxDB has no
        // iterator there, so null.
        let counts = columns.map { column in
            InfluxQueryShape.isCount(column.expr) && column.expr.references.allSatisfy { scope.fieldTypes[$0] != nil }
        }
        return InfluxFiller.fill(rows, times: times, fill: select.fill, counts: counts)
    }

    static func key(_ call: (name: String, arguments: [InfluxExpr])) -> String {
        "\(call.name)(\(call.arguments.map { "\($0)" }.joined(separator: ",")))"
    }

    /// A column's value given its calls' values; nil when a call has none.
    func evaluate(_ expr: InfluxExpr, _ call: ((name: String, arguments: [InfluxExpr])) -> InfluxValue?) -> InfluxValue? {
        switch expr {
        case .call(let name, let arguments): return call((name, arguments))
        case .paren(let inner): return evaluate(inner, call)
        case .integer(let value): return .integer(value)
        case .number(let value): return .float(value)
        case .binary(let op, let lhs, let rhs):
            guard let a = evaluate(lhs, call), let b = evaluate(rhs, call) else { return nil }
            return InfluxEvaluator.apply(op, a, b)
        default: return nil
        }
    }
}

extension InfluxQueryShape {
    static func isCount(_ expr: InfluxExpr) -> Bool {
        if case .call("count", _) = expr.bare { return true }
        return false
    }
}
