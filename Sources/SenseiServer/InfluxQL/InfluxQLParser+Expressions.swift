extension InfluxQLParser {
    /// Binary operators and their precedence (InfluxDB's `Token.Precedence`).
    static func precedence(_ token: InfluxQLToken) -> Int? {
        switch token {
        case .keyword("OR"): 1
        case .keyword("AND"): 2
        case .symbol("="), .symbol("!="), .symbol("=~"), .symbol("!~"), .symbol("<"), .symbol("<="),
             .symbol(">"), .symbol(">="):
            3
        case .symbol("+"), .symbol("-"), .symbol("|"), .symbol("^"): 4
        case .symbol("*"), .symbol("/"), .symbol("%"), .symbol("&"): 5
        default: nil
        }
    }

    static func operatorName(_ token: InfluxQLToken) -> String {
        if case .keyword(let word) = token { return word }
        return token.text
    }

    /// An expression, operators folded by precedence, left to right.
    mutating func parseExpr() throws(InfluxQLParseError) -> InfluxExpr {
        var operands = [try parseUnary()]
        var operators: [(name: String, precedence: Int)] = []
        func reduce() {
            let rhs = operands.removeLast(), lhs = operands.removeLast()
            operands.append(.binary(operators.removeLast().name, lhs, rhs))
        }
        while true {
            let next = scanSkippingSpace()
            guard let precedence = Self.precedence(next.token) else {
                unscan()
                break
            }
            let name = Self.operatorName(next.token)
            while let last = operators.last, last.precedence >= precedence { reduce() }
            operators.append((name, precedence))
            if name == "=~" || name == "!~" {
                guard let regex = try parseRegex() else { throw error(scanSkippingSpace(), expected: ["regex"]) }
                operands.append(.regex(regex))
            } else {
                operands.append(try parseUnary())
            }
        }
        while !operators.isEmpty { reduce() }
        return operands[0]
    }

    mutating func parseUnary() throws(InfluxQLParseError) -> InfluxExpr {
        terms += 1
        depth += 1
        defer { depth -= 1 }
        let next = scanSkippingSpace()
        guard terms <= Self.maximumTerms, depth <= Self.maximumDepth else {
            throw error("expression too complex (more than \(Self.maximumTerms) terms or \(Self.maximumDepth) levels)",
                        at: next.offset)
        }
        switch next.token {
        case .symbol("("):
            let inner = try parseExpr()
            let close = scanSkippingSpace()
            guard close.token.isSymbol(")") else { throw error(close, expected: [")"]) }
            return .paren(inner)
        case .identifier(let name):
            if scan().token.isSymbol("(") { return try parseCall(name.lowercased()) }
            unscan()
            unscan()
            return try parseReference()
        case .keyword("DISTINCT"):
            let after = scan()
            if after.token.isSymbol("(") { return try parseCall("distinct") }
            if after.token == .whitespace {
                let field = scanSkippingSpace()
                guard case .identifier(let name) = field.token else { throw error(field, expected: ["identifier"]) }
                return .distinct(name)
            }
            throw error(after, expected: ["(", "identifier"])
        case .keyword("TRUE"): return .boolean(true)
        case .keyword("FALSE"): return .boolean(false)
        case .string(let text): return .string(text)
        case .number(let text):
            guard let value = Double(text) else { throw error("unable to parse number", at: next.offset) }
            return .number(value)
        case .integer(let text):
            guard let value = Int64(text) else { throw error("unable to parse integer", at: next.offset) }
            return .integer(value)
        case .duration(let text):
            guard let value = InfluxDuration.parse(text) else { throw InfluxQLParseError("invalid duration") }
            return .duration(value)
        case .symbol("*"):
            if scan().token.isSymbol("::") {
                let type = scan()
                guard type.token.isKeyword("FIELD") || type.token.isKeyword("TAG") else {
                    throw error(type, expected: ["field", "tag"])
                }
            } else {
                unscan()
            }
            return .wildcard
        case .symbol("+"), .symbol("-"):
            let negative = next.token.isSymbol("-")
            let operand = scanSkippingSpace()
            switch operand.token {
            case .number, .integer, .duration, .symbol("("), .identifier:
                unscan()
                let value = try parseUnary()
                guard negative else { return value }
                switch value {
                case .number(let number): return .number(-number)
                case .integer(let integer): return .integer(-integer)
                case .duration(let duration): return .duration(-duration)
                default: return .binary("*", .integer(-1), value)
                }
            default:
                throw error(operand, expected: ["identifier", "number", "duration", "("])
            }
        case .boundParameter(let name):
            throw InfluxQLParseError("missing parameter: \(name.dropFirst())")
        default:
            throw error(next, expected: ["identifier", "string", "number", "bool"])
        }
    }

    /// `a`, `"a"."b"`, `a::field`: a field or tag name (a dotted name is one name).
    private mutating func parseReference() throws(InfluxQLParseError) -> InfluxExpr {
        var segments = [try parseIdentifier()]
        while scan().token.isSymbol(".") {
            segments.append(try parseIdentifier())
        }
        unscan()
        if scan().token.isSymbol("::") {
            let type = scan()
            switch type.token {
            case .identifier(let name) where ["float", "integer", "unsigned", "string", "boolean"].contains(name.lowercased()):
                break
            case .keyword("FIELD"), .keyword("TAG"):
                break
            default:
                throw error(type, expected: ["float", "integer", "unsigned", "string", "boolean", "field", "tag"])
            }
        } else {
            unscan()
        }
        return .reference(segments.joined(separator: "."))
    }

    /// The arguments of `name(`, through the `)`.
    private mutating func parseCall(_ name: String) throws(InfluxQLParseError) -> InfluxExpr {
        var arguments: [InfluxExpr] = []
        if let regex = try parseRegex() {
            arguments.append(.regex(regex))
        } else {
            if scanSkippingSpace().token.isSymbol(")") { return .call(name, []) }
            unscan()
            arguments.append(try parseExpr())
        }
        while true {
            let next = scanSkippingSpace()
            guard next.token.isSymbol(",") else {
                unscan()
                break
            }
            if let regex = try parseRegex() {
                arguments.append(.regex(regex))
            } else {
                arguments.append(try parseExpr())
            }
        }
        let close = scanSkippingSpace()
        guard close.token.isSymbol(")") else { throw error(close, expected: [")"]) }
        return .call(name, arguments)
    }
}

/// InfluxQL durations: an integer and a unit, repeated (`1h30m`): `ns`, `u`
/// or `µ`, `ms`, `s`, `m`, `h`, `d`, `w`. Nanoseconds.
enum InfluxDuration {
    static func parse(_ text: String) -> Int64? {
        var total: Int64 = 0
        var bytes = Substring(text)
        guard !bytes.isEmpty else { return nil }
        while !bytes.isEmpty {
            let digits = bytes.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, let number = Int64(digits) else { return nil }
            bytes = bytes.dropFirst(digits.count)
            let unit = bytes.prefix { !($0.isASCII && $0.isNumber) }
            bytes = bytes.dropFirst(unit.count)
            guard let scale = Self.units[String(unit)] else { return nil }
            let (product, overflow) = number.multipliedReportingOverflow(by: scale)
            guard !overflow else { return nil }
            let (sum, overflowSum) = total.addingReportingOverflow(product)
            guard !overflowSum else { return nil }
            total = sum
        }
        return total
    }

    static let units: [String: Int64] = [
        "ns": 1, "u": 1_000, "µ": 1_000, "ms": 1_000_000, "s": 1_000_000_000, "m": 60_000_000_000,
        "h": 3_600_000_000_000, "d": 86_400_000_000_000, "w": 604_800_000_000_000,
    ]
}
