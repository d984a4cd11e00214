/// The time bounds a WHERE clause sets (nanoseconds, inclusive).
struct InfluxTimeRange {
    var lo = InfluxTime.min
    var hi = InfluxTime.max

    var hasLowerBound: Bool { lo != InfluxTime.min }
    var hasUpperBound: Bool { hi != InfluxTime.max }
}

struct InfluxQueryError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// A WHERE clause cut in two: the time comparisons (ANDed at the top, as
/// InfluxDB requires) become a range, the rest a filter on tags and fields.
enum InfluxCondition {
    static func split(_ expr: InfluxExpr?, now: Int64) throws(InfluxQueryError) -> (InfluxTimeRange, InfluxExpr?) {
        var range = InfluxTimeRange()
        guard let expr else { return (range, nil) }
        let filter = try split(expr, now: now, into: &range)
        return (range, filter)
    }

    private static func split(_ expr: InfluxExpr, now: Int64,
                              into range: inout InfluxTimeRange) throws(InfluxQueryError) -> InfluxExpr? {
        switch expr {
        case .paren(let inner):
            return try split(inner, now: now, into: &range)
        case .binary("AND", let lhs, let rhs):
            let left = try split(lhs, now: now, into: &range)
            let right = try split(rhs, now: now, into: &range)
            switch (left, right) {
            case (nil, nil): return nil
            case (let one?, nil), (nil, let one?): return one
            case (let l?, let r?): return .binary("AND", l, r)
            }
        case .binary(let op, let lhs, let rhs) where ["=", "<", "<=", ">", ">=", "!="].contains(op):
            if case .reference("time") = lhs.bare {
                try apply(op, try timeValue(rhs, now: now), to: &range)
                return nil
            }
            if case .reference("time") = rhs.bare {
                let flipped = ["<": ">", "<=": ">=", ">": "<", ">=": "<="][op] ?? op
                try apply(flipped, try timeValue(lhs, now: now), to: &range)
                return nil
            }
            return expr
        default:
            if expr.references.contains("time") { throw InfluxQueryError("invalid time condition: \(op(of: expr)) with time is not supported") }
            return expr
        }
    }

    private static func op(of expr: InfluxExpr) -> String {
        if case .binary(let op, _, _) = expr.bare { return op }
        return "expression"
    }

    private static func apply(_ op: String, _ t: Int64, to range: inout InfluxTimeRange) throws(InfluxQueryError) {
        switch op {
        case ">": range.lo = max(range.lo, t == Int64.max ? t : t + 1)
        case ">=": range.lo = max(range.lo, t)
        case "<": range.hi = min(range.hi, t == Int64.min ? t : t - 1)
        case "<=": range.hi = min(range.hi, t)
        case "=":
            range.lo = max(range.lo, t)
            range.hi = min(range.hi, t)
        default: throw InfluxQueryError("invalid time comparison operator: \(op)")
        }
    }

    /// A time on the other side of `time <op>`: `now()`, RFC 3339 strings,
    /// integers (nanoseconds), durations (`1700000000000ms`), and sums of them.
    static func timeValue(_ expr: InfluxExpr, now: Int64) throws(InfluxQueryError) -> Int64 {
        switch expr {
        case .paren(let inner): return try timeValue(inner, now: now)
        case .call("now", let arguments) where arguments.isEmpty: return now
        case .integer(let value): return value
        case .number(let value):
            guard value.isFinite, abs(value) < 9.2e18 else { throw InfluxQueryError("time value out of range") }
            return Int64(value)
        case .duration(let value): return value
        case .string(let text):
            guard let value = InfluxTime.parse(text) else {
                throw InfluxQueryError("invalid operation: time and *influxql.StringLiteral are not compatible")
            }
            return value
        case .binary(let op, let lhs, let rhs) where op == "+" || op == "-":
            let (a, b) = (try timeValue(lhs, now: now), try timeValue(rhs, now: now))
            let (value, overflow) = op == "+" ? a.addingReportingOverflow(b) : a.subtractingReportingOverflow(b)
            guard !overflow else { throw InfluxQueryError("time value out of range") }
            return value
        default:
            throw InfluxQueryError("invalid time expression")
        }
    }
}

/// Evaluates a filter (or a raw select's arithmetic) for one row: tags by
/// name, fields by name; null for anything unknown, so that a series can be
/// kept or dropped on its tags alone before its points are read.
struct InfluxEvaluator {
    let tagKeys: Set<String>
    let tag: (String) -> String?
    /// nil: fields are unknown (judging a series by its tags).
    let field: ((String) -> InfluxValue)?
    /// The measurement's fields: any other name is a tag, empty where a
    /// series lacks it (InfluxDB's reading of an unknown name).
    var fieldKeys: Set<String> = []

    func value(_ expr: InfluxExpr) -> InfluxValue {
        switch expr {
        case .paren(let inner): return value(inner)
        case .reference(let name):
            if let field, !tagKeys.contains(name) { return field(name) }
            if tagKeys.contains(name) || !fieldKeys.contains(name) { return .string(tag(name) ?? "") }
            return .null
        case .string(let text): return .string(text)
        case .integer(let number): return .integer(number)
        case .number(let number): return .float(number)
        case .boolean(let flag): return .bool(flag)
        case .duration(let ns): return .integer(ns)
        case .binary(let op, let lhs, let rhs): return binary(op, lhs, rhs)
        default: return .null
        }
    }

    /// Whether the expression may hold: false only when it surely does not.
    func mayHold(_ expr: InfluxExpr) -> Bool { value(expr) != .bool(false) }

    func holds(_ expr: InfluxExpr) -> Bool { value(expr) == .bool(true) }

    private func binary(_ op: String, _ lhs: InfluxExpr, _ rhs: InfluxExpr) -> InfluxValue {
        switch op {
        case "AND", "OR":
            let (a, b) = (value(lhs), value(rhs))
            let isAnd = op == "AND"
            if a == .bool(!isAnd) || b == .bool(!isAnd) { return .bool(!isAnd) }
            if a == .bool(isAnd) && b == .bool(isAnd) { return .bool(isAnd) }
            return .null
        case "=~", "!~":
            guard case .regex(let regex) = rhs else { return .null }
            guard case .string(let text) = value(lhs) else { return field == nil ? .null : .bool(false) }
            return .bool(regex.matches(text) == (op == "=~"))
        default:
            let (a, b) = (value(lhs), value(rhs))
            if a == .null || b == .null { return field == nil ? .null : (["+", "-", "*", "/", "%"].contains(op) ? .null : .bool(false)) }
            return Self.apply(op, a, b)
        }
    }

    /// `op` when it is a comparison, for strings and numbers alike; nil otherwise.
    private static func compare<T: Comparable>(_ op: String, _ x: T, _ y: T) -> InfluxValue? {
        switch op {
        case "=": .bool(x == y)
        case "!=": .bool(x != y)
        case "<": .bool(x < y)
        case "<=": .bool(x <= y)
        case ">": .bool(x > y)
        case ">=": .bool(x >= y)
        default: nil
        }
    }

    static func apply(_ op: String, _ a: InfluxValue, _ b: InfluxValue) -> InfluxValue {
        if case .string(let x) = a, case .string(let y) = b {
            if let compared = compare(op, x, y) { return compared }
            return op == "+" ? .string(x + y) : .null
        }
        if case .integer(let x) = a, case .integer(let y) = b {
            switch op {
            case "+": return .integer(x &+ y)
            case "-": return .integer(x &- y)
            case "*": return .integer(x &* y)
            case "/": return y == 0 ? .float(0) : .float(Double(x) / Double(y))
            case "%": return y == 0 ? .null : y == -1 ? .integer(0) : .integer(x % y)
            default: break
            }
        }
        guard let x = a.number, let y = b.number else {
            if op == "=" { return .bool(false) }
            if op == "!=" { return .bool(true) }
            return .null
        }
        if let compared = compare(op, x, y) { return compared }
        switch op {
        case "+": return .float(x + y)
        case "-": return .float(x - y)
        case "*": return .float(x * y)
        case "/": return y == 0 ? .float(0) : .float(x / y)
        case "%": return .float(x.truncatingRemainder(dividingBy: y))
        default: return .null
        }
    }
}
