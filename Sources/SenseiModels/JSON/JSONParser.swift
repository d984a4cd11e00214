/// Why a body is not JSON, with the byte offset where parsing stopped.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String
    public let offset: Int

    public var description: String { "\(reason) at byte \(offset)" }
}

/// A strict RFC 8259 parser over raw bytes.
///
/// Hand-written rather than Foundation's so that every failure has a precise,
/// printable reason (invalid UTF-8, nesting too deep, stray bytes), and so that
/// nothing a client sends can exhaust the stack.
public struct JSONParser {
    public static let maximumDepth = 64

    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> JSONValue in
            var parser = JSONParser(buffer)
            parser.skipWhitespace()
            let value = try parser.parseValue(depth: 0)
            parser.skipWhitespace()
            guard parser.position == buffer.count else {
                throw parser.error("unexpected \(parser.describeCurrent()) after the JSON value")
            }
            return value
        }
    }

    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private func error(_ reason: String) -> JSONParseError {
        JSONParseError(reason: reason, offset: position)
    }

    private func describeCurrent() -> String {
        guard position < bytes.count else { return "end of input" }
        let byte = bytes[position]
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }

    private mutating func skipWhitespace() {
        JSONBytes.skipWhitespace(bytes, &position)
    }

    private mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard position < bytes.count else { throw error("unexpected end of input") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected \(describeCurrent())")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        guard JSONBytes.hasWord(bytes, at: position, literal) else { throw error("invalid literal") }
        position += literal.utf8CodeUnitCount
    }

    private mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth)") }
        position += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw error("expected a string key, found \(describeCurrent())")
            }
            let key = try parseString()
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
                throw error("expected ':' after an object key, found \(describeCurrent())")
            }
            position += 1
            skipWhitespace()
            members[key] = try parseValue(depth: depth)
            skipWhitespace()
            guard position < bytes.count else { throw error("unterminated object") }
            switch bytes[position] {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"): position += 1; return .object(members)
            default: throw error("expected ',' or '}' in an object, found \(describeCurrent())")
            }
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth)") }
        position += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try parseValue(depth: depth))
            skipWhitespace()
            guard position < bytes.count else { throw error("unterminated array") }
            switch bytes[position] {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"): position += 1; return .array(items)
            default: throw error("expected ',' or ']' in an array, found \(describeCurrent())")
            }
        }
    }

    private mutating func parseNumber() throws(JSONParseError) -> Double {
        guard let value = JSONNumber.read(bytes, at: &position) else { throw error("invalid number") }
        return value
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        position += 1
        let start = position
        // Fast path: no escapes, plain bytes up to the closing quote.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<position])
                position += 1
                return try decodeUTF8(slice, at: start)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("control character in a string") }
            position += 1
        }
        var scratch = Array(UnsafeBufferPointer(rebasing: bytes[start..<position]))
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return try scratch.withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> String in
                    try decodeUTF8(buffer, at: start)
                }
            case UInt8(ascii: "\\"):
                position += 1
                try appendEscape(to: &scratch)
            case 0..<0x20:
                throw error("control character in a string")
            default:
                scratch.append(byte)
                position += 1
            }
        }
        throw error("unterminated string")
    }

    private func decodeUTF8(_ slice: UnsafeBufferPointer<UInt8>, at start: Int) throws(JSONParseError) -> String {
        guard let string = String(validating: slice, as: UTF8.self) else {
            throw JSONParseError(reason: "invalid UTF-8 in a string", offset: start)
        }
        return string
    }

    private mutating func appendEscape(to scratch: inout [UInt8]) throws(JSONParseError) {
        guard position < bytes.count else { throw error("unterminated string") }
        let escape = bytes[position]
        position += 1
        switch escape {
        case UInt8(ascii: "\""): scratch.append(0x22)
        case UInt8(ascii: "\\"): scratch.append(0x5C)
        case UInt8(ascii: "/"): scratch.append(0x2F)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800..<0xDC00).contains(scalar) {
                guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                      bytes[position + 1] == UInt8(ascii: "u") else {
                    throw error("unpaired UTF-16 surrogate")
                }
                position += 2
                let low = try parseHex4()
                guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired UTF-16 surrogate") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw error("unpaired UTF-16 surrogate")
            }
            scratch.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
        default:
            position -= 1
            throw error("invalid escape '\\\(Character(Unicode.Scalar(escape)))'")
        }
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - 48)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - 87)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - 55)
            default: throw error("invalid \\u escape")
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }
}
