extension InfluxQLParser {
    static let showWords = ["CONTINUOUS", "DATABASES", "DIAGNOSTICS", "FIELD", "GRANTS", "MEASUREMENT", "MEASUREMENTS",
                            "QUERIES", "RETENTION", "SERIES", "SHARD", "SHARDS", "STATS", "SUBSCRIPTIONS", "TAG", "USERS"]

    /// After `SHOW`: what Grafana's editor and Home Assistant ask; the rest
    /// of InfluxDB's SHOW statements are administration, acknowledged only.
    mutating func parseShow() throws(InfluxQLParseError) -> InfluxStatement {
        let next = scanSkippingSpace()
        switch next.token {
        case .keyword("DATABASES"):
            return .show(InfluxShow(kind: .databases))
        case .keyword("RETENTION"):
            try expectKeyword("POLICIES")
            if accept(keyword: "ON") { _ = try parseIdentifier() }
            return .show(InfluxShow(kind: .retentionPolicies))
        case .keyword("MEASUREMENTS"):
            return .show(try parseShowMeasurements())
        case .keyword("TAG"):
            let which = scanSkippingSpace()
            if which.token.isKeyword("KEYS") { return .show(try parseShowFiltered(.tagKeys)) }
            if which.token.isKeyword("VALUES") { return .show(try parseShowTagValues()) }
            throw error(which, expected: ["KEY", "KEYS", "VALUES"])
        case .keyword("FIELD"):
            let which = scanSkippingSpace()
            guard which.token.isKeyword("KEYS") else { throw error(which, expected: ["KEY", "KEYS"]) }
            return .show(try parseShowFiltered(.fieldKeys))
        case .keyword("SERIES"):
            return .show(try parseShowFiltered(.series))
        case .keyword(let word) where Self.showWords.contains(word):
            while true {
                let token = scanSkippingSpace()
                if token.token == .eof || token.token.isSymbol(";") {
                    unscan()
                    break
                }
            }
            return .unsupported("SHOW " + word)
        default:
            throw error(next, expected: Self.showWords)
        }
    }

    /// `[ON db] [WITH MEASUREMENT =|=~ source] [WHERE …] [LIMIT n] [OFFSET n]`.
    private mutating func parseShowMeasurements() throws(InfluxQLParseError) -> InfluxShow {
        var show = InfluxShow(kind: .measurements)
        try skipOnDatabase()
        if accept(keyword: "WITH") {
            try expectKeyword("MEASUREMENT")
            let op = scanSkippingSpace()
            guard op.token.isSymbol("=") || op.token.isSymbol("=~") else { throw error(op, expected: ["=", "=~"]) }
            show.sources = [try parseSource()]
        }
        try parseTail(into: &show)
        return show
    }

    /// TAG KEYS, FIELD KEYS, SERIES: `[ON db] [FROM …] [WHERE …] [LIMIT n] [OFFSET n]`.
    private mutating func parseShowFiltered(_ kind: InfluxShow.Kind) throws(InfluxQLParseError) -> InfluxShow {
        var show = InfluxShow(kind: kind)
        try skipOnDatabase()
        if accept(keyword: "FROM") { show.sources = try parseSources() }
        try parseTail(into: &show)
        _ = try parseOptionalInt(after: "SLIMIT")
        _ = try parseOptionalInt(after: "SOFFSET")
        return show
    }

    /// `[ON db] [FROM …] WITH KEY (= k | != k | IN (k, …) | =~ /re/ | !~ /re/) [WHERE …] [LIMIT n] [OFFSET n]`.
    private mutating func parseShowTagValues() throws(InfluxQLParseError) -> InfluxShow {
        try skipOnDatabase()
        var sources: [InfluxSource] = []
        if accept(keyword: "FROM") { sources = try parseSources() }
        try expectKeyword("WITH")
        try expectKeyword("KEY")
        let op = scanSkippingSpace()
        let filter: InfluxTagKeyFilter
        switch op.token {
        case .keyword("IN"):
            let open = scanSkippingSpace()
            guard open.token.isSymbol("(") else { throw error(open, expected: ["("]) }
            var keys = [try parseIdentifier()]
            while acceptSymbol(",") { keys.append(try parseIdentifier()) }
            let close = scanSkippingSpace()
            guard close.token.isSymbol(")") else { throw error(close, expected: [")"]) }
            filter = .equal(keys)
        case .symbol("="): filter = .equal([try parseIdentifier()])
        case .symbol("!="): filter = .notEqual(try parseIdentifier())
        case .symbol("=~"), .symbol("!~"):
            guard let regex = try parseRegex() else { throw error(scanSkippingSpace(), expected: ["regex"]) }
            filter = .regex(regex, negated: op.token.isSymbol("!~"))
        default:
            throw error(op, expected: ["IN", "=", "=~"])
        }
        var show = InfluxShow(kind: .tagValues(filter), sources: sources)
        try parseTail(into: &show)
        return show
    }

    private mutating func skipOnDatabase() throws(InfluxQLParseError) {
        guard accept(keyword: "ON") else { return }
        let name = scanSkippingSpace()
        switch name.token {
        case .identifier, .symbol("*"): break
        default: throw error(name, expected: ["identifier"])
        }
    }

    /// `[WHERE …] [ORDER BY …] [LIMIT n] [OFFSET n]`.
    private mutating func parseTail(into show: inout InfluxShow) throws(InfluxQLParseError) {
        if accept(keyword: "WHERE") { show.condition = try parseExpr() }
        if accept(keyword: "ORDER") {
            try expectKeyword("BY")
            let next = scanSkippingSpace()
            switch next.token {
            case .keyword("ASC"), .keyword("DESC"): break
            case .identifier:
                if !accept(keyword: "ASC") { _ = accept(keyword: "DESC") }
            default: throw error(next, expected: ["identifier", "ASC", "DESC"])
            }
        }
        show.limit = try parseOptionalInt(after: "LIMIT")
        show.offset = try parseOptionalInt(after: "OFFSET")
    }
}
