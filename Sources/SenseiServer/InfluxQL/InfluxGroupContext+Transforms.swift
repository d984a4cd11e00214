import SenseiModels

/// Transformations: over raw points, or with GROUP BY time over a nested
/// aggregate's windows, read from one window earlier (cumulative_sum: not)
/// so the first window has a predecessor, as InfluxDB 1.6 does.
extension InfluxGroupContext {
    func transformRows(_ columns: [InfluxColumn]) throws(InfluxQueryError) -> [[InfluxValue]] {
        var outputs: [[Int64: InfluxValue]] = []
        for column in columns {
            guard case .call(let name, let arguments) = column.expr.bare else {
                throw InfluxQueryError("mixing aggregate and non-aggregate queries is not supported")
            }
            outputs.append(try transform(name, arguments))
        }
        let times = Set(outputs.flatMap(\.keys)).sorted()
        return times.map { time in [.time(time)] + outputs.map { $0[time] ?? .null } }
    }

    private func transform(_ name: String, _ arguments: [InfluxExpr]) throws(InfluxQueryError) -> [Int64: InfluxValue] {
        let unitArgument: Int64? = if arguments.count > 1, case .duration(let value) = arguments[1] { value } else { nil }
        let n: Int = if arguments.count > 1, case .integer(let value) = arguments[1] { Int(value) } else { 0 }
        var points: [InfluxPoint]
        var type: ValueType
        var earliest = range.lo
        switch arguments[0].bare {
        case .reference(let field):
            // A transformation of raw readings gives a row a reading: read no
            // more than a page of rows needs (and a few over, so the answer
            // says it is partial), never a year into memory.
            points = try self.points(of: field, from: range.lo, through: range.hi,
                                     limit: InfluxSelectExecutor.maximumRows + 1 + Swift.max(n, 1))
            type = self.type(of: field)
        case .call(let inner, let innerArguments):
            guard let (every, _) = select.interval, case .reference(let field) = innerArguments.first?.bare else {
                throw InfluxQueryError("\(name) aggregate requires a GROUP BY interval")
            }
            let all = try windows()
            guard let first = all.first else { return [:] }
            earliest = first.start
            // InfluxDB 1.6 moves the start one interval back for every
            // transformation but cumulative_sum, whatever moving_average's N.
            let extra: Int64 = name == "cumulative_sum" ? 0 : 1
            let (back, overflow) = every.multipliedReportingOverflow(by: extra)
            let (start, early) = first.start.subtractingReportingOverflow(back)
            guard !overflow, !early else { throw InfluxQueryError("\(name): the window reaches before the earliest time") }
            let lo = range.hasLowerBound ? range.lo &- back : start
            let windows = try self.windows(from: start, through: all.last!.start)
            let reduced = try reduce(inner, innerArguments, over: windows, from: lo, through: upperBound)
            var carried: Double?
            points = []
            for (window, values) in zip(windows, reduced) {
                if let value = values.first?.value.number {
                    carried = value
                    points.append(InfluxPoint(time: window.start, value: value))
                } else {
                    switch select.fill {
                    case .null where inner == "count": points.append(InfluxPoint(time: window.start, value: 0))
                    case .number(let value): points.append(InfluxPoint(time: window.start, value: value))
                    case .previous: if let carried { points.append(InfluxPoint(time: window.start, value: carried)) }
                    default: break
                    }
                }
            }
            switch inner {
            case "count": type = .int
            case "mean", "median", "stddev", "integral": type = .float
            default: type = self.type(of: field)
            }
        default:
            throw InfluxQueryError("expected field argument in \(name)()")
        }
        let ascending = !select.descending
        if !ascending { points.reverse() }
        let unit: Int64 = unitArgument ?? (name == "elapsed" ? 1 : (select.interval?.every ?? 1_000_000_000))
        var out: [Int64: InfluxValue] = [:]
        for (time, value) in InfluxTransform.apply(name, points, ascending: ascending, unit: unit, n: n, type: type)
        where time >= earliest {
            out[time] = value
        }
        return out
    }
}
