/// InfluxQL's tokens, as InfluxDB 1.x's `influxql/scanner.go` cuts them:
/// errors name a token by its literal, or by these names (`EOF`, `SELECT`).
enum InfluxQLToken: Equatable {
    case eof, illegal(String), whitespace, comment
    case identifier(String), keyword(String)
    case integer(String), number(String), duration(String), string(String)
    case badString(String), badEscape(String), boundParameter(String)
    case symbol(String)  // operators and punctuation: + - * / % & | ^ = != =~ !~ < <= > >= ( ) , ; . : ::

    /// What an error message calls it (`tokstr` in InfluxDB).
    var text: String {
        switch self {
        case .eof: "EOF"
        case .illegal(let text): text.isEmpty ? "ILLEGAL" : text
        case .whitespace: "WS"
        case .comment: "COMMENT"
        case .identifier(let text), .integer(let text), .number(let text), .duration(let text),
             .boundParameter(let text):
            text
        case .string(let text): text.isEmpty ? "STRING" : text
        case .badString(let text): text.isEmpty ? "BADSTRING" : text
        case .badEscape(let text): text.isEmpty ? "BADESCAPE" : text
        case .keyword(let word): word
        case .symbol(let text): text
        }
    }

    func isKeyword(_ word: String) -> Bool { self == .keyword(word) }
    func isSymbol(_ text: String) -> Bool { self == .symbol(text) }

    /// InfluxQL's reserved words; `true`/`false` are literals spelled like words.
    static let keywords: Set<String> = [
        "ALL", "ALTER", "ANALYZE", "AND", "ANY", "AS", "ASC", "BEGIN", "BY", "CARDINALITY", "CREATE", "CONTINUOUS",
        "DATABASE", "DATABASES", "DEFAULT", "DELETE", "DESC", "DESTINATIONS", "DIAGNOSTICS", "DISTINCT", "DROP",
        "DURATION", "END", "EVERY", "EXACT", "EXPLAIN", "FALSE", "FIELD", "FOR", "FROM", "FUTURE", "GRANT", "GRANTS",
        "GROUP", "GROUPS", "IN", "INF", "INSERT", "INTO", "KEY", "KEYS", "KILL", "LIMIT", "MEASUREMENT",
        "MEASUREMENTS", "NAME", "OFFSET", "ON", "OR", "ORDER", "PASSWORD", "PAST", "POLICY", "POLICIES", "PRIVILEGES",
        "QUERIES", "QUERY", "READ", "REPLICATION", "RESAMPLE", "RETENTION", "REVOKE", "SELECT", "SERIES", "SET",
        "SHOW", "SHARD", "SHARDS", "SLIMIT", "SOFFSET", "STATS", "SUBSCRIPTION", "SUBSCRIPTIONS", "TAG", "TO",
        "TRUE", "USER", "USERS", "VALUES", "VERBOSE", "WHERE", "WITH", "WRITE",
    ]
}

/// A token and where it starts (a byte offset into the query text).
struct InfluxQLScanned {
    var token: InfluxQLToken
    var offset: Int
}

/// Cuts query text into tokens, one at a time; the parser saves and restores
/// `offset` to look ahead, and asks for a regex only where one may stand, as
/// `/` is also division.
struct InfluxQLScanner {
    let bytes: [UInt8]
    var offset = 0

    init(_ text: String) { bytes = Array(text.utf8) }

    private func peek(_ ahead: Int = 0) -> UInt8? {
        offset + ahead < bytes.count ? bytes[offset + ahead] : nil
    }

    static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A)
    }
    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
    static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
    static func isIdentChar(_ byte: UInt8) -> Bool { isLetter(byte) || isDigit(byte) || byte == 0x5F }

    /// The next token, whitespace and comments included.
    mutating func scan() -> InfluxQLScanned {
        let start = offset
        guard let byte = peek() else { return InfluxQLScanned(token: .eof, offset: start) }
        func done(_ token: InfluxQLToken, length: Int) -> InfluxQLScanned {
            offset += length
            return InfluxQLScanned(token: token, offset: start)
        }
        if Self.isWhitespace(byte) {
            while let next = peek(), Self.isWhitespace(next) { offset += 1 }
            return InfluxQLScanned(token: .whitespace, offset: start)
        }
        if Self.isLetter(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "\"") {
            return InfluxQLScanned(token: scanIdentifier(lookup: true), offset: start)
        }
        if Self.isDigit(byte) || (byte == UInt8(ascii: ".") && peek(1).map(Self.isDigit) == true) {
            return InfluxQLScanned(token: scanNumber(), offset: start)
        }
        switch byte {
        case UInt8(ascii: "'"):
            return InfluxQLScanned(token: scanString(), offset: start)
        case UInt8(ascii: "$"):
            offset += 1
            let token = scanIdentifier(lookup: false)
            if case .identifier(let name) = token { return InfluxQLScanned(token: .boundParameter("$" + name), offset: start) }
            return InfluxQLScanned(token: token, offset: start)
        case UInt8(ascii: "-") where peek(1) == UInt8(ascii: "-"):
            while let next = peek(), next != 0x0A { offset += 1 }
            return InfluxQLScanned(token: .comment, offset: start)
        case UInt8(ascii: "/") where peek(1) == UInt8(ascii: "*"):
            offset += 2
            while offset < bytes.count {
                if peek() == UInt8(ascii: "*"), peek(1) == UInt8(ascii: "/") {
                    offset += 2
                    return InfluxQLScanned(token: .comment, offset: start)
                }
                offset += 1
            }
            return InfluxQLScanned(token: .illegal(""), offset: start)
        case UInt8(ascii: "="):
            return peek(1) == UInt8(ascii: "~") ? done(.symbol("=~"), length: 2) : done(.symbol("="), length: 1)
        case UInt8(ascii: "!"):
            if peek(1) == UInt8(ascii: "=") { return done(.symbol("!="), length: 2) }
            if peek(1) == UInt8(ascii: "~") { return done(.symbol("!~"), length: 2) }
            return done(.illegal("!"), length: 1)
        case UInt8(ascii: ">"):
            return peek(1) == UInt8(ascii: "=") ? done(.symbol(">="), length: 2) : done(.symbol(">"), length: 1)
        case UInt8(ascii: "<"):
            if peek(1) == UInt8(ascii: "=") { return done(.symbol("<="), length: 2) }
            if peek(1) == UInt8(ascii: ">") { return done(.symbol("!="), length: 2) }
            return done(.symbol("<"), length: 1)
        case UInt8(ascii: ":"):
            return peek(1) == UInt8(ascii: ":") ? done(.symbol("::"), length: 2) : done(.symbol(":"), length: 1)
        default:
            if let symbol = Self.singles[byte] { return done(.symbol(symbol), length: 1) }
            // One whole UTF-8 scalar, so an error names the character.
            var length = 1
            while offset + length < bytes.count, bytes[offset + length] & 0xC0 == 0x80 { length += 1 }
            let text = String(decoding: bytes[offset..<offset + length], as: UTF8.self)
            return done(.illegal(text), length: length)
        }
    }

    private static let singles: [UInt8: String] = [
        UInt8(ascii: "+"): "+", UInt8(ascii: "-"): "-", UInt8(ascii: "*"): "*", UInt8(ascii: "/"): "/",
        UInt8(ascii: "%"): "%", UInt8(ascii: "&"): "&", UInt8(ascii: "|"): "|", UInt8(ascii: "^"): "^",
        UInt8(ascii: "("): "(", UInt8(ascii: ")"): ")", UInt8(ascii: ","): ",", UInt8(ascii: ";"): ";",
        UInt8(ascii: "."): ".",
    ]

    /// A bare word (a keyword unless `lookup` is off) or a `"quoted"` one;
    /// InfluxDB joins runs of both (`a"b"` is `ab`).
    private mutating func scanIdentifier(lookup: Bool) -> InfluxQLToken {
        var text: [UInt8] = []
        while let byte = peek() {
            if byte == UInt8(ascii: "\"") {
                switch scanQuoted() {
                case .string(let value): return .identifier(value)
                case let other: return other
                }
            } else if Self.isIdentChar(byte) {
                text.append(byte)
                offset += 1
            } else {
                break
            }
        }
        let word = String(decoding: text, as: UTF8.self)
        if lookup, Self.isKeywordText(word) { return .keyword(word.uppercased()) }
        return .identifier(word)
    }

    private static func isKeywordText(_ word: String) -> Bool {
        word.utf8.count <= 13 && InfluxQLToken.keywords.contains(word.uppercased())
    }

    private mutating func scanString() -> InfluxQLToken {
        switch scanQuoted() {
        case .string(let value): .string(value)
        case let other: other
        }
    }

    /// A string between the quote at `offset` and the next unescaped one:
    /// `\n \\ \" \'` are escapes, anything else after `\` is a bad escape,
    /// a newline or the end a bad string.
    private mutating func scanQuoted() -> InfluxQLToken {
        let quote = bytes[offset]
        offset += 1
        var text: [UInt8] = []
        while true {
            guard let byte = peek(), byte != 0x0A else {
                return .badString(String(decoding: text, as: UTF8.self))
            }
            offset += 1
            if byte == quote { return .string(String(decoding: text, as: UTF8.self)) }
            if byte == UInt8(ascii: "\\") {
                let next = peek()
                offset += 1
                switch next {
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "\\"), UInt8(ascii: "\""), UInt8(ascii: "'"): text.append(next!)
                default:
                    let shown = next.map { String(decoding: [$0], as: UTF8.self) } ?? ""
                    return .badEscape("\\" + shown)
                }
            } else {
                text.append(byte)
            }
        }
    }

    /// Digits, maybe a fraction (a number), or digits and unit letters (a
    /// duration such as `15m` or `1700000000000ms`), else an integer.
    private mutating func scanNumber() -> InfluxQLToken {
        let start = offset
        while let byte = peek(), Self.isDigit(byte) { offset += 1 }
        var decimal = false
        if peek() == UInt8(ascii: "."), peek(1).map(Self.isDigit) == true {
            decimal = true
            offset += 1
            while let byte = peek(), Self.isDigit(byte) { offset += 1 }
        } else if peek() == UInt8(ascii: ".") {
            // `1.` is the integer 1 followed by a dot in InfluxDB, but its
            // scanner reads the dot as part of a decimal: a number.
            decimal = true
            offset += 1
        }
        if !decimal, let byte = peek(), Self.isLetter(byte) || isMicro() {
            while let byte = peek(), Self.isLetter(byte) || Self.isDigit(byte) || isMicro() {
                offset += byte == 0xC2 ? 2 : 1
            }
            return .duration(String(decoding: bytes[start..<offset], as: UTF8.self))
        }
        let text = String(decoding: bytes[start..<offset], as: UTF8.self)
        return decimal ? .number(text) : .integer(text)
    }

    /// `µ` (U+00B5, two bytes), a duration unit.
    private func isMicro() -> Bool { peek() == 0xC2 && peek(1) == 0xB5 }

    /// A `/regex/` starting at `offset` (after whitespace): `\/` stands for
    /// `/`, any other escape is kept for the regex engine.
    mutating func scanRegex() -> (InfluxQLScanned, pattern: String?) {
        while let byte = peek(), Self.isWhitespace(byte) { offset += 1 }
        let start = offset
        guard peek() == UInt8(ascii: "/") else { return (scan(), nil) }
        offset += 1
        var pattern: [UInt8] = []
        while let byte = peek() {
            offset += 1
            if byte == UInt8(ascii: "\\"), peek() == UInt8(ascii: "/") {
                pattern.append(UInt8(ascii: "/"))
                offset += 1
            } else if byte == UInt8(ascii: "/") {
                return (InfluxQLScanned(token: .symbol("regex"), offset: start), String(decoding: pattern, as: UTF8.self))
            } else if byte == 0x0A {
                break
            } else {
                pattern.append(byte)
            }
        }
        return (InfluxQLScanned(token: .illegal("bad regex"), offset: start), nil)
    }

    /// InfluxDB's position: line and character, both from 1.
    func position(of byteOffset: Int) -> (line: Int, char: Int) {
        var line = 1, char = 1
        for byte in bytes[..<min(byteOffset, bytes.count)] {
            if byte == 0x0A {
                line += 1
                char = 1
            } else if byte & 0xC0 != 0x80 {
                char += 1
            }
        }
        return (line, char + Swift.max(0, byteOffset - bytes.count))
    }
}
