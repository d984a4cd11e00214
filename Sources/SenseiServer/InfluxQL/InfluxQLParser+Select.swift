import Foundation

extension InfluxQLParser {
    /// After `SELECT`: the clauses in InfluxDB's fixed order.
    mutating func parseSelect() throws(InfluxQLParseError) -> InfluxSelect {
        var select = InfluxSelect()
        repeat {
            select.fields.append(try parseField())
        } while acceptSymbol(",")
        if accept(keyword: "INTO") { throw InfluxQLParseError("SELECT INTO is not supported by Sensei") }
        let from = scanSkippingSpace()
        guard from.token.isKeyword("FROM") else { throw error(from, expected: ["FROM"]) }
        select.sources = try parseSources()
        if accept(keyword: "WHERE") { select.condition = try parseExpr() }
        if accept(keyword: "GROUP") {
            let by = scanSkippingSpace()
            guard by.token.isKeyword("BY") else { throw error(by, expected: ["BY"]) }
            repeat {
                try parseDimension(into: &select)
            } while acceptSymbol(",")
        }
        if let fill = try parseOptionalCall("fill") { select.fill = try Self.fill(fill) }
        if accept(keyword: "ORDER") { select.descending = try parseOrderBy() }
        select.limit = try parseOptionalInt(after: "LIMIT")
        select.offset = try parseOptionalInt(after: "OFFSET")
        select.seriesLimit = try parseOptionalInt(after: "SLIMIT")
        select.seriesOffset = try parseOptionalInt(after: "SOFFSET")
        if let tz = try parseOptionalCall("tz") { select.timeZone = try Self.timeZone(tz) }
        return select
    }

    mutating func acceptSymbol(_ symbol: String) -> Bool {
        if scanSkippingSpace().token.isSymbol(symbol) { return true }
        unscan()
        return false
    }

    private mutating func parseField() throws(InfluxQLParseError) -> InfluxSelectField {
        let expr: InfluxExpr
        if let regex = try parseRegex() {
            expr = .regex(regex)
        } else {
            let start = scanSkippingSpace()
            unscan()
            expr = try parseExpr()
            if let bad = Self.comparison(in: expr) {
                let (line, char) = scanner.position(of: start.offset)
                throw InfluxQLParseError("invalid operator \(bad) in SELECT clause at line \(line), char \(char); "
                                         + "operator is intended for WHERE clause")
            }
        }
        var alias: String?
        if accept(keyword: "AS") { alias = try parseIdentifier() }
        return InfluxSelectField(expr: expr, alias: alias)
    }

    private static func comparison(in expr: InfluxExpr) -> String? {
        switch expr {
        case .binary(let op, let lhs, let rhs):
            if ["=", "!=", "=~", "!~", "<", "<=", ">", ">=", "AND", "OR"].contains(op) { return op }
            return comparison(in: lhs) ?? comparison(in: rhs)
        case .paren(let inner): return comparison(in: inner)
        case .call(_, let arguments): return arguments.lazy.compactMap(comparison(in:)).first
        default: return nil
        }
    }

    /// Measurements after FROM (and in SHOW … FROM): names, `db.rp.m`, regexes.
    mutating func parseSources() throws(InfluxQLParseError) -> [InfluxSource] {
        var sources: [InfluxSource] = []
        repeat {
            sources.append(try parseSource())
        } while acceptSymbol(",")
        return sources
    }

    mutating func parseSource() throws(InfluxQLParseError) -> InfluxSource {
        if let regex = try parseRegex() { return InfluxSource(regex: regex) }
        if scanSkippingSpace().token.isSymbol("(") {
            throw InfluxQLParseError("subqueries are not supported by Sensei")
        }
        unscan()
        var segments = [try parseIdentifier()]
        while segments.count < 3, scan().token.isSymbol(".") {
            if peekByte() == UInt8(ascii: "/") {
                guard let regex = try parseRegex() else { break }
                return InfluxSource(regex: regex)
            }
            if peekByte() == UInt8(ascii: ".") {
                segments.append("")
                continue
            }
            segments.append(try parseIdentifier())
        }
        if segments.count < 3 { unscan() }
        return InfluxSource(name: segments.last)
    }

    private mutating func parseDimension(into select: inout InfluxSelect) throws(InfluxQLParseError) {
        if let regex = try parseRegex() {
            select.dimensions.append(.regex(regex))
            return
        }
        let expr = try parseExpr()
        switch expr {
        case .call("time", let arguments):
            guard select.interval == nil else { throw InfluxQLParseError("multiple time dimensions not allowed") }
            guard (1...2).contains(arguments.count) else {
                throw InfluxQLParseError("time dimension expected 1 or 2 arguments")
            }
            guard case .duration(let every) = arguments[0] else {
                throw InfluxQLParseError("time dimension must have duration argument")
            }
            guard every > 0 else { throw InfluxQLParseError("time dimension must have positive duration") }
            var offset: Int64 = 0
            if arguments.count == 2 {
                switch arguments[1] {
                case .duration(let value): offset = value
                case .call("now", _): offset = 0
                default: throw InfluxQLParseError("time dimension offset must be duration or now()")
                }
            }
            select.interval = (every, offset)
        case .reference, .wildcard:
            select.dimensions.append(expr)
        case .call:
            throw InfluxQLParseError("only time() calls allowed in dimensions")
        default:
            throw InfluxQLParseError("only time and tag dimensions allowed")
        }
    }

    /// `name(…)` if it comes next (`fill`, `tz`), else nil and nothing consumed.
    private mutating func parseOptionalCall(_ name: String) throws(InfluxQLParseError) -> [InfluxExpr]? {
        let next = scanSkippingSpace()
        unscan()
        guard case .identifier(let word) = next.token, word.lowercased() == name else { return nil }
        guard case .call(_, let arguments) = try parseExpr() else {
            throw InfluxQLParseError("\(name) must be a function call")
        }
        return arguments
    }

    private static func fill(_ arguments: [InfluxExpr]) throws(InfluxQLParseError) -> InfluxFill {
        guard arguments.count == 1 else {
            throw InfluxQLParseError("fill requires an argument, e.g.: 0, null, none, previous, linear")
        }
        switch arguments[0] {
        case .reference("null"): return .null
        case .reference("none"): return InfluxFill.none
        case .reference("previous"): return .previous
        case .reference("linear"): return .linear
        case .integer(let value): return .number(Double(value))
        case .number(let value): return .number(value)
        default: throw InfluxQLParseError("expected number argument in fill()")
        }
    }

    private static func timeZone(_ arguments: [InfluxExpr]) throws(InfluxQLParseError) -> TimeZone {
        guard arguments.count == 1 else { throw InfluxQLParseError("tz requires exactly one argument") }
        guard case .string(let name) = arguments[0] else { throw InfluxQLParseError("expected string argument in tz()") }
        guard let zone = TimeZone(identifier: name) else { throw InfluxQLParseError("unable to find time zone \(name)") }
        return zone
    }

    /// After ORDER: BY time [ASC|DESC] or BY ASC|DESC; true for descending.
    private mutating func parseOrderBy() throws(InfluxQLParseError) -> Bool {
        let by = scanSkippingSpace()
        guard by.token.isKeyword("BY") else { throw error(by, expected: ["BY"]) }
        let next = scanSkippingSpace()
        switch next.token {
        case .keyword("ASC"): return false
        case .keyword("DESC"): return true
        case .identifier(let name):
            guard name == "time" else { throw InfluxQLParseError("only ORDER BY time supported at this time") }
            if accept(keyword: "DESC") { return true }
            _ = accept(keyword: "ASC")
            if acceptSymbol(",") { throw InfluxQLParseError("only ORDER BY time supported at this time") }
            return false
        default:
            throw error(next, expected: ["identifier", "ASC", "DESC"])
        }
    }

}
