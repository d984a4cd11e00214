/// A recursive-descent parser for the part of InfluxQL that reads data,
/// after InfluxDB 1.8's `influxql/parser.go`, whose error texts it keeps
/// (clients show them). The grammar, informally:
///
///     query       = statement { ";" statement }
///     statement   = select | show | "CREATE" "DATABASE" ident | other admin words
///     select      = "SELECT" field { "," field } "FROM" source { "," source }
///                   [ "WHERE" expr ] [ "GROUP" "BY" dimension { "," dimension } ]
///                   [ fill ] [ "ORDER" "BY" ( "time" [ "ASC" | "DESC" ] | "ASC" | "DESC" ) ]
///                   [ "LIMIT" int ] [ "OFFSET" int ] [ "SLIMIT" int ] [ "SOFFSET" int ] [ tz ]
///     field       = ( regex | expr ) [ "AS" ident ]
///     source      = regex | ident [ "." [ ident ] [ "." ident ] ]  (db.rp.measurement)
///     expr        = unary { operator unary }   (precedence: OR < AND < comparison < + - | ^ < * / % &)
///     unary       = "(" expr ")" | ident "(" [ args ] ")" | ident [ "::" type ] | string | number
///                 | integer | duration | "true" | "false" | "*" | ( "+" | "-" ) unary
///     dimension   = regex | expr        (time(interval[, offset]), a tag, "*")
///     fill        = "fill" "(" ( "null" | "none" | "previous" | "linear" | number ) ")"
///     tz          = "tz" "(" string ")"
struct InfluxQLParser {
    private(set) var scanner: InfluxQLScanner
    /// Where the last token scanned began, to step back over it.
    private var previous: [Int] = []
    /// Terms and nesting of the statement so far: a query of 100,000 nested
    /// parentheses or terms would overflow the stack of whatever walks its tree.
    var terms = 0, depth = 0
    static let maximumTerms = 1_000, maximumDepth = 100

    init(_ text: String) { scanner = InfluxQLScanner(text) }

    /// Every statement of `text`, or the first parse error.
    static func parse(_ text: String) throws(InfluxQLParseError) -> [InfluxStatement] {
        var parser = InfluxQLParser(text)
        return try parser.parseQuery()
    }

    mutating func parseQuery() throws(InfluxQLParseError) -> [InfluxStatement] {
        var statements: [InfluxStatement] = []
        var separated = true
        while true {
            let next = scanSkippingSpace()
            if next.token == .eof { return statements }
            if next.token.isSymbol(";") {
                separated = true
                continue
            }
            guard separated else { throw error(next, expected: [";"]) }
            unscan()
            terms = 0
            statements.append(try parseStatement())
            separated = false
        }
    }

    // MARK: Tokens

    mutating func scan() -> InfluxQLScanned {
        previous.append(scanner.offset)
        if previous.count > 8 { previous.removeFirst() }
        return scanner.scan()
    }

    /// The next token that is not whitespace or a comment.
    mutating func scanSkippingSpace() -> InfluxQLScanned {
        while true {
            let mark = scanner.offset
            let next = scanner.scan()
            if next.token != .whitespace && next.token != .comment {
                previous.append(mark)
                if previous.count > 8 { previous.removeFirst() }
                return next
            }
        }
    }

    /// Steps back before the last token scanned (and the space before it).
    mutating func unscan() {
        if let mark = previous.popLast() { scanner.offset = mark }
    }

    /// The next byte that is not whitespace, without consuming anything.
    func peekByte() -> UInt8? {
        var index = scanner.offset
        while index < scanner.bytes.count, InfluxQLScanner.isWhitespace(scanner.bytes[index]) { index += 1 }
        return index < scanner.bytes.count ? scanner.bytes[index] : nil
    }

    func error(_ found: InfluxQLScanned, expected: [String]) -> InfluxQLParseError {
        // InfluxDB's reader counts one past the last character when it meets the end.
        let (line, char) = scanner.position(of: found.offset + (found.token == .eof ? 1 : 0))
        return InfluxQLParseError("found \(found.token.text), expected \(expected.joined(separator: ", ")) at line \(line), char \(char)")
    }

    func error(_ message: String, at offset: Int) -> InfluxQLParseError {
        let (line, char) = scanner.position(of: offset)
        return InfluxQLParseError("\(message) at line \(line), char \(char)")
    }

    mutating func expectKeyword(_ word: String) throws(InfluxQLParseError) {
        let next = scanSkippingSpace()
        guard next.token.isKeyword(word) else { throw error(next, expected: [word]) }
    }

    /// Consumes `word` if it is next.
    mutating func accept(keyword word: String) -> Bool {
        if scanSkippingSpace().token.isKeyword(word) { return true }
        unscan()
        return false
    }

    mutating func parseIdentifier() throws(InfluxQLParseError) -> String {
        let next = scanSkippingSpace()
        guard case .identifier(let name) = next.token else { throw error(next, expected: ["identifier"]) }
        return name
    }

    /// `LIMIT 10` and its kin: 0 when the word is absent.
    mutating func parseOptionalInt(after word: String) throws(InfluxQLParseError) -> Int {
        guard accept(keyword: word) else { return 0 }
        let next = scanSkippingSpace()
        guard case .integer(let text) = next.token else { throw error(next, expected: ["integer"]) }
        guard let value = Int(text) else { throw error("unable to parse integer", at: next.offset) }
        return value
    }

    /// A `/regex/` if one comes next, else nil and nothing consumed.
    mutating func parseRegex() throws(InfluxQLParseError) -> InfluxRegex? {
        guard peekByte() == UInt8(ascii: "/") else { return nil }
        previous.append(scanner.offset)
        let (scanned, pattern) = scanner.scanRegex()
        guard let pattern else { throw error("bad regex", at: scanned.offset) }
        do {
            return try InfluxRegex(pattern)
        } catch {
            throw self.error("error parsing regexp: invalid regex /\(pattern)/", at: scanned.offset)
        }
    }

    // MARK: Statements

    static let statementWords = ["SELECT", "DELETE", "SHOW", "CREATE", "DROP", "EXPLAIN", "GRANT", "REVOKE",
                                 "ALTER", "SET", "KILL"]

    mutating func parseStatement() throws(InfluxQLParseError) -> InfluxStatement {
        let first = scanSkippingSpace()
        switch first.token {
        case .keyword("SELECT"): return .select(try parseSelect())
        case .keyword("SHOW"): return try parseShow()
        case .keyword("CREATE"):
            let next = scanSkippingSpace()
            guard next.token.isKeyword("DATABASE") else {
                skipStatement()
                return .unsupported("CREATE " + next.token.text)
            }
            let name = try parseIdentifier()
            skipStatement()  // WITH DURATION … : accepted, one store keeps everything
            return .createDatabase(name)
        case .keyword(let word) where Self.statementWords.contains(word):
            skipStatement()
            return .unsupported(word)
        default:
            throw error(first, expected: Self.statementWords)
        }
    }

    /// Skips to the next `;`, for statements Sensei only acknowledges.
    private mutating func skipStatement() {
        while true {
            let next = scanSkippingSpace()
            if next.token == .eof || next.token.isSymbol(";") {
                unscan()
                return
            }
        }
    }
}

struct InfluxQLParseError: Error, Equatable, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
