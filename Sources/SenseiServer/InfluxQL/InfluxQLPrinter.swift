/// The AST printed back as InfluxQL, in one canonical spelling (keywords
/// upper case, names quoted only when they must be): what the parser
/// understood, readable in tests and logs.
extension InfluxExpr: CustomStringConvertible {
    var description: String {
        switch self {
        case .reference(let name): InfluxQLPrinter.identifier(name)
        case .wildcard: "*"
        case .regex(let regex): "/" + regex.pattern.replacingOccurrences(of: "/", with: "\\/") + "/"
        case .call(let name, let arguments): "\(name)(\(arguments.map(\.description).joined(separator: ", ")))"
        case .distinct(let name): "DISTINCT \(InfluxQLPrinter.identifier(name))"
        case .binary(let op, let lhs, let rhs): "\(lhs) \(op) \(rhs)"
        case .paren(let inner): "(\(inner))"
        case .string(let text): "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
        case .integer(let value): "\(value)"
        case .number(let value): "\(value)"
        case .boolean(let value): value ? "true" : "false"
        case .duration(let ns): InfluxQLPrinter.duration(ns)
        }
    }
}

extension InfluxStatement: CustomStringConvertible {
    var description: String {
        switch self {
        case .select(let select): InfluxQLPrinter.select(select)
        case .show(let show): InfluxQLPrinter.show(show)
        case .createDatabase(let name): "CREATE DATABASE \(InfluxQLPrinter.identifier(name))"
        case .unsupported(let words): "\(words) (not supported)"
        }
    }
}

enum InfluxQLPrinter {
    static func identifier(_ name: String) -> String {
        let bare = !name.isEmpty && name.utf8.allSatisfy { InfluxQLScanner.isIdentChar($0) }
            && !InfluxQLScanner.isDigit(name.utf8.first!) && !InfluxQLToken.keywords.contains(name.uppercased())
        return bare ? name : "\"" + name.replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// The largest unit that divides the duration exactly.
    static func duration(_ ns: Int64) -> String {
        for (unit, size) in [("w", Int64(604_800_000_000_000)), ("d", 86_400_000_000_000), ("h", 3_600_000_000_000),
                             ("m", 60_000_000_000), ("s", 1_000_000_000), ("ms", 1_000_000), ("u", 1_000)]
        where ns != 0 && ns % size == 0 {
            return "\(ns / size)\(unit)"
        }
        return "\(ns)ns"
    }

    static func sources(_ sources: [InfluxSource]) -> String {
        sources.map { $0.regex.map { InfluxExpr.regex($0).description } ?? identifier($0.name ?? "") }.joined(separator: ", ")
    }

    static func select(_ select: InfluxSelect) -> String {
        var text = "SELECT " + select.fields.map { field in
            field.expr.description + (field.alias.map { " AS " + identifier($0) } ?? "")
        }.joined(separator: ", ")
        text += " FROM " + sources(select.sources)
        if let condition = select.condition { text += " WHERE \(condition)" }
        var dimensions: [String] = []
        if let (every, offset) = select.interval {
            dimensions.append("time(\(duration(every))" + (offset != 0 ? ", \(duration(offset)))" : ")"))
        }
        dimensions += select.dimensions.map(\.description)
        if !dimensions.isEmpty { text += " GROUP BY " + dimensions.joined(separator: ", ") }
        switch select.fill {
        case .null: break
        case .none: text += " fill(none)"
        case .previous: text += " fill(previous)"
        case .linear: text += " fill(linear)"
        case .number(let value): text += " fill(\(value))"
        }
        if select.descending { text += " ORDER BY time DESC" }
        if select.limit > 0 { text += " LIMIT \(select.limit)" }
        if select.offset > 0 { text += " OFFSET \(select.offset)" }
        if select.seriesLimit > 0 { text += " SLIMIT \(select.seriesLimit)" }
        if select.seriesOffset > 0 { text += " SOFFSET \(select.seriesOffset)" }
        if let zone = select.timeZone { text += " tz('\(zone.identifier)')" }
        return text
    }

    static func show(_ show: InfluxShow) -> String {
        var text: String
        switch show.kind {
        case .databases: return "SHOW DATABASES"
        case .retentionPolicies: return "SHOW RETENTION POLICIES"
        case .measurements:
            text = "SHOW MEASUREMENTS" + (show.sources.isEmpty ? "" : " WITH MEASUREMENT "
                + (show.sources[0].regex != nil ? "=~ " : "= ") + sources(show.sources))
        case .tagKeys: text = "SHOW TAG KEYS" + (show.sources.isEmpty ? "" : " FROM " + sources(show.sources))
        case .fieldKeys: text = "SHOW FIELD KEYS" + (show.sources.isEmpty ? "" : " FROM " + sources(show.sources))
        case .series: text = "SHOW SERIES" + (show.sources.isEmpty ? "" : " FROM " + sources(show.sources))
        case .tagValues(let filter):
            text = "SHOW TAG VALUES" + (show.sources.isEmpty ? "" : " FROM " + sources(show.sources)) + " WITH KEY "
            switch filter {
            case .equal(let keys) where keys.count == 1: text += "= " + identifier(keys[0])
            case .equal(let keys): text += "IN (" + keys.map(identifier).joined(separator: ", ") + ")"
            case .notEqual(let key): text += "!= " + identifier(key)
            case .regex(let regex, let negated): text += (negated ? "!~ " : "=~ ") + InfluxExpr.regex(regex).description
            }
        }
        if let condition = show.condition { text += " WHERE \(condition)" }
        if show.limit > 0 { text += " LIMIT \(show.limit)" }
        if show.offset > 0 { text += " OFFSET \(show.offset)" }
        return text
    }
}
