import Foundation

/// A `/regex/` of a query: the pattern as written and its compiled form.
/// InfluxDB compiles with Go's RE2; ICU reads the same syntax for what
/// clients send (`(?i)`, anchors, classes, alternation).
struct InfluxRegex: @unchecked Sendable {
    let pattern: String
    let compiled: NSRegularExpression

    init(_ pattern: String) throws {
        self.pattern = pattern
        compiled = try NSRegularExpression(pattern: pattern)
    }

    func matches(_ text: String) -> Bool {
        compiled.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }
}

/// InfluxQL's expressions: field and tag references, literals, calls and
/// binary operations (InfluxDB's `ast.go`, less what Sensei never meets).
indirect enum InfluxExpr {
    case reference(String)
    case wildcard
    case regex(InfluxRegex)
    case call(String, [InfluxExpr])
    case distinct(String)
    case binary(String, InfluxExpr, InfluxExpr)
    case paren(InfluxExpr)
    case string(String)
    case integer(Int64)
    case number(Double)
    case boolean(Bool)
    /// Nanoseconds.
    case duration(Int64)

    /// Strips parentheses.
    var bare: InfluxExpr {
        if case .paren(let inner) = self { return inner.bare }
        return self
    }

    /// The calls in this expression, outermost first.
    var calls: [(name: String, arguments: [InfluxExpr])] {
        switch self {
        case .call(let name, let arguments): [(name, arguments)]
        case .binary(_, let lhs, let rhs): lhs.calls + rhs.calls
        case .paren(let inner): inner.calls
        default: []
        }
    }

    /// The field and tag names it refers to.
    var references: [String] {
        switch self {
        case .reference(let name): [name]
        case .call(_, let arguments): arguments.flatMap(\.references)
        case .binary(_, let lhs, let rhs): lhs.references + rhs.references
        case .paren(let inner): inner.references
        default: []
        }
    }
}

/// `FROM` one measurement: a name (`"db"."rp"."m"`, only the name counts) or a regex.
struct InfluxSource {
    var name: String?
    var regex: InfluxRegex?

    func matches(_ measurement: String) -> Bool {
        if let regex { return regex.matches(measurement) }
        return name == measurement
    }
}

struct InfluxSelectField {
    var expr: InfluxExpr
    var alias: String?
}

enum InfluxFill: Equatable {
    case null, none, previous, linear
    case number(Double)
}

struct InfluxSelect {
    var fields: [InfluxSelectField] = []
    var sources: [InfluxSource] = []
    var condition: InfluxExpr?
    /// GROUP BY terms other than time: tag names, `*`, regexes.
    var dimensions: [InfluxExpr] = []
    /// GROUP BY time(interval[, offset]), nanoseconds.
    var interval: (every: Int64, offset: Int64)?
    var fill: InfluxFill = .null
    var descending = false
    var limit = 0, offset = 0, seriesLimit = 0, seriesOffset = 0
    var timeZone: TimeZone?
}

enum InfluxTagKeyFilter {
    case equal([String])
    case notEqual(String)
    case regex(InfluxRegex, negated: Bool)

    func matches(_ key: String) -> Bool {
        switch self {
        case .equal(let keys): keys.contains(key)
        case .notEqual(let other): key != other
        case .regex(let regex, let negated): regex.matches(key) != negated
        }
    }
}

struct InfluxShow {
    enum Kind {
        case databases
        case retentionPolicies
        case measurements
        case tagKeys
        case tagValues(InfluxTagKeyFilter)
        case fieldKeys
        case series
    }

    var kind: Kind
    var sources: [InfluxSource] = []
    var condition: InfluxExpr?
    var limit = 0, offset = 0
}

enum InfluxStatement {
    case select(InfluxSelect)
    case show(InfluxShow)
    case createDatabase(String)
    /// Parsed as far as its first words: administration Sensei has no use for.
    case unsupported(String)
}
