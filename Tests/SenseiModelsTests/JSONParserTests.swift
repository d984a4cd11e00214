import SenseiModels
import Testing

/// The error parsing `bytes` fails with, or nil when it parses.
private func parseError(_ bytes: [UInt8]) -> JSONParseError? {
    do {
        _ = try JSONParser.parse(bytes)
        return nil
    } catch {
        return error
    }
}

private func parseError(_ text: String) -> JSONParseError? { parseError(Array(text.utf8)) }

private func nested(_ depth: Int, open: String, close: String, inner: String = "1") -> String {
    String(repeating: open, count: depth) + inner + String(repeating: close, count: depth)
}

private let malformedDocuments: [(String, String, Int)] = [
    ("", "unexpected end of input", 0),
    ("   ", "unexpected end of input", 3),
    ("[", "unexpected end of input", 1),
    ("[1", "unterminated array", 2),
    ("[1,]", "unexpected ']'", 3),
    ("[,1]", "unexpected ','", 1),
    ("[1 2]", "expected ',' or ']' in an array, found '2'", 3),
    ("[1:2]", "expected ',' or ']' in an array, found ':'", 2),
    ("]", "unexpected ']'", 0),
    ("{", "expected a string key, found end of input", 1),
    ("{1:2}", "expected a string key, found '1'", 1),
    ("{'a':1}", "expected a string key, found '''", 1),
    ("{a:1}", "expected a string key, found 'a'", 1),
    (#"{"a"}"#, "expected ':' after an object key, found '}'", 4),
    (#"{"a" 1}"#, "expected ':' after an object key, found '1'", 5),
    (#"{"a":}"#, "unexpected '}'", 5),
    (#"{"a":1,}"#, "expected a string key, found '}'", 7),
    (#"{"a":1"#, "unterminated object", 6),
    (#"{"a":1 "b":2}"#, "expected ',' or '}' in an object, found '\"'", 7),
    (#"{"a"::1}"#, "unexpected ':'", 5),
    ("tru", "invalid literal", 0),
    ("nul", "invalid literal", 0),
    ("fals", "invalid literal", 0),
    ("[tru]", "invalid literal", 1),
    ("nulL", "invalid literal", 0),
    ("True", "unexpected 'T'", 0),
    ("NaN", "unexpected 'N'", 0),
    ("Infinity", "unexpected 'I'", 0),
    ("undefined", "unexpected 'u'", 0),
    ("'a'", "unexpected '''", 0),
    // Numbers.
    ("-", "invalid number", 1),
    ("-a", "invalid number", 1),
    ("1.", "invalid number", 2),
    ("1.e3", "invalid number", 2),
    ("1e", "invalid number", 2),
    ("1e+", "invalid number", 3),
    ("1E-", "invalid number", 3),
    (".5", "unexpected '.'", 0),
    ("+1", "unexpected '+'", 0),
    ("[-]", "invalid number", 2),
    // Leading zeros: the zero is a whole number, the next digit is a stray byte.
    ("01", "unexpected '1' after the JSON value", 1),
    ("00", "unexpected '0' after the JSON value", 1),
    ("-01", "unexpected '1' after the JSON value", 2),
    ("007.5", "unexpected '0' after the JSON value", 1),
    ("[01]", "expected ',' or ']' in an array, found '1'", 2),
    (#"{"a":01}"#, "expected ',' or '}' in an object, found '1'", 6),
    ("0x10", "unexpected 'x' after the JSON value", 1),
    // Trailing bytes.
    ("{} x", "unexpected 'x' after the JSON value", 3),
    ("1 2", "unexpected '2' after the JSON value", 2),
    ("[]]", "unexpected ']' after the JSON value", 2),
    ("{}{}", "unexpected '{' after the JSON value", 2),
    ("nullx", "unexpected 'x' after the JSON value", 4),
    ("truefalse", "unexpected 'f' after the JSON value", 4),
    (#""a""b""#, "unexpected '\"' after the JSON value", 3),
    ("{}\u{0}", "unexpected byte 0x0 after the JSON value", 2),
    ("{}\u{7F}", "unexpected byte 0x7F after the JSON value", 2),
    // Only space, tab, CR and LF are whitespace.
    ("\u{0C}1", "unexpected byte 0xC", 0),
    ("\u{0B}1", "unexpected byte 0xB", 0),
    ("\u{A0}1", "unexpected byte 0xC2", 0),
    // Strings.
    (#""abc"#, "unterminated string", 4),
    (#""ab\"#, "unterminated string", 4),
    (#""ab\n"#, "unterminated string", 5),
    (#"["abc]"#, "unterminated string", 6),
    (#""\x""#, "invalid escape '\\x'", 2),
    (#""\'""#, "invalid escape '\\''", 2),
    (#""\U0041""#, "invalid escape '\\U'", 2),
    (#""ab\0""#, "invalid escape '\\0'", 4),
    (#""\u12G4""#, "invalid \\u escape", 5),
    (#""\u-123""#, "invalid \\u escape", 3),
    (#""\u12""#, "truncated \\u escape", 3),
    (#""\u"#, "truncated \\u escape", 3),
    ("\"a\tb\"", "control character in a string", 2),
    ("\"a\nb\"", "control character in a string", 2),
    ("\"\u{0}\"", "control character in a string", 1),
    ("\"\u{1F}\"", "control character in a string", 1),
    ("\"\\n\u{1}\"", "control character in a string", 3),
    ("{\"a\rb\":1}", "control character in a string", 3),
    // Surrogates must come in high-low pairs.
    (#""\uD800""#, "unpaired UTF-16 surrogate", 7),
    (#""\uDBFF"#, "unpaired UTF-16 surrogate", 7),
    (#""\uDC00""#, "unpaired UTF-16 surrogate", 7),
    (#""\uDFFF""#, "unpaired UTF-16 surrogate", 7),
    (#""\uD800x""#, "unpaired UTF-16 surrogate", 7),
    (#""\uD800\u0041""#, "unpaired UTF-16 surrogate", 13),
    (#""\uD800\uD800""#, "unpaired UTF-16 surrogate", 13),
    (#""\uD800\n""#, "unpaired UTF-16 surrogate", 7),
    (#""\uDE00\uD83D""#, "unpaired UTF-16 surrogate", 7),
]

@Suite struct JSONParserTests {
    // MARK: values

    @Test(arguments: [
        ("null", JSONValue.null),
        ("true", .bool(true)),
        ("false", .bool(false)),
        ("0", .number(0)),
        ("-0", .number(0)),
        ("7", .number(7)),
        ("-123", .number(-123)),
        ("1.5", .number(1.5)),
        ("-1.5e3", .number(-1_500)),
        ("1E2", .number(100)),
        ("1e+2", .number(100)),
        ("1e-2", .number(0.01)),
        ("0.1", .number(0.1)),
        ("0e5", .number(0)),
        ("23.50", .number(23.5)),
        ("1736424000", .number(1_736_424_000)),
        ("999999999999999", .number(999_999_999_999_999)),
        // Past 2^53 an integer rounds to the nearest double, as any parser would.
        ("9007199254740993", .number(9_007_199_254_740_992)),
        ("-9223372036854775808", .number(-9_223_372_036_854_775_808)),
        ("123456789012345678901234567890", .number(1.2345678901234568e29)),
        ("1e-400", .number(0)),
        ("5e-324", .number(.leastNonzeroMagnitude)),
        ("1.7976931348623157e308", .number(1.7976931348623157e308)),
        (#""""#, .string("")),
        (#""abc""#, .string("abc")),
        (#""°C""#, .string("°C")),
        (#""温度 😀""#, .string("温度 😀")),
        ("\"\u{7F}\"", .string("\u{7F}")),
        ("[]", .array([])),
        ("{}", .object([:])),
        ("[1,\"a\",null,true,{\"k\":[]}]",
         .array([.number(1), .string("a"), .null, .bool(true), .object(["k": .array([])])])),
        (#"{"a":1,"b":[true,false],"c":{"d":null}}"#,
         .object(["a": .number(1), "b": .array([.bool(true), .bool(false)]), "c": .object(["d": .null])])),
        (" \t\r\n{ \"a\" : [ 1 , 2 ] }\n\r\t ", .object(["a": .array([.number(1), .number(2)])])),
        // A repeated key keeps its last value.
        (#"{"a":1,"a":2}"#, .object(["a": .number(2)])),
        (#"{"":0}"#, .object(["": .number(0)])),
    ] as [(String, JSONValue)])
    func parsesValues(text: String, expected: JSONValue) throws {
        #expect(try JSONParser.parse(text) == expected)
        #expect(try JSONParser.parse(Array(text.utf8)) == expected)
    }

    @Test func negativeZeroIsZero() throws {
        let value = try #require(try JSONParser.parse("-0.0").doubleValue)
        #expect(value == 0)
    }

    // MARK: strings

    @Test(arguments: [
        (#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{08}\u{0C}\n\r\t"),
        (#""\u0041\u0062""#, "Ab"),
        (#""\u00e9\u00E9""#, "éé"),
        (#""\u20AC""#, "€"),
        (#""\u0000""#, "\u{0}"),
        (#""\u001f""#, "\u{1F}"),
        (#""\uFFFF""#, "\u{FFFF}"),
        (#""\uD83D\uDE00""#, "😀"),
        (#""\ud834\udd1e""#, "𝄞"),
        (#""\uDBFF\uDFFF""#, "\u{10FFFF}"),
        (#""a\u00e9b\n😀 °C""#, "aéb\n😀 °C"),
        (#""°\n""#, "°\n"),
        (#""\\u0041""#, "\\u0041"),
    ] as [(String, String)])
    func decodesEscapes(text: String, expected: String) throws {
        #expect(try JSONParser.parse(text) == .string(expected))
    }

    @Test func escapedKeys() throws {
        #expect(try JSONParser.parse(#"{"a\"b":1,"\u00e9":2}"#) == .object(["a\"b": .number(1), "é": .number(2)]))
    }

    @Test(arguments: [
        [0x22, 0xFF, 0x22],
        [0x22, 0x80, 0x22],
        [0x22, 0xC3, 0x22],
        [0x22, 0xE2, 0x82, 0x22],
        [0x22, 0xC0, 0x80, 0x22],
        [0x22, 0xE0, 0x80, 0xAF, 0x22],
        [0x22, 0xED, 0xA0, 0x80, 0x22],
        [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],
        [0x22, 0xF8, 0x88, 0x80, 0x80, 0x80, 0x22],
        // After an escape the parser takes its slower path; it must still check.
        [0x22, 0x5C, 0x6E, 0xFF, 0x22],
        [0x22, 0x61, 0x5C, 0x75, 0x30, 0x30, 0x34, 0x31, 0xC3, 0x22],
    ] as [[UInt8]])
    func rejectsInvalidUTF8(bytes: [UInt8]) {
        #expect(parseError(bytes)?.description == "invalid UTF-8 in a string at byte 1")
    }

    @Test func invalidUTF8OffsetIsTheStartOfTheString() {
        // {"a":"<FF>"}: the string's first byte is at offset 6.
        #expect(parseError([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D])?.description
                == "invalid UTF-8 in a string at byte 6")
        // {"<FF>":1}: a key is checked too.
        #expect(parseError([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D])?.description
                == "invalid UTF-8 in a string at byte 2")
    }

    @Test func byteOrderMarkIsNotJSON() {
        #expect(parseError([0xEF, 0xBB, 0xBF, 0x7B, 0x7D])?.description == "unexpected byte 0xEF at byte 0")
    }

    // MARK: errors

    @Test(arguments: malformedDocuments)
    func reportsReasonAndOffset(text: String, reason: String, offset: Int) {
        #expect(parseError(text)?.reason == reason)
        #expect(parseError(text)?.offset == offset)
    }

    @Test func errorDescriptionNamesTheByte() {
        #expect(parseError("[1,]")?.description == "unexpected ']' at byte 3")
    }

    // MARK: nesting

    @Test func sixtyFourLevelsAreAccepted() throws {
        let arrays = try JSONParser.parse(nested(64, open: "[", close: "]"))
        var value = arrays
        for _ in 0..<64 { value = try #require(value[0]) }
        #expect(value == .number(1))

        let objects = try JSONParser.parse(nested(64, open: #"{"a":"#, close: "}"))
        value = objects
        for _ in 0..<64 { value = try #require(value["a"]) }
        #expect(value == .number(1))

        #expect(throws: Never.self) { try JSONParser.parse(nested(32, open: #"[{"a":"#, close: "}]")) }
        #expect(throws: Never.self) { try JSONParser.parse(nested(63, open: "[", close: "]", inner: "{}")) }
    }

    @Test func sixtyFiveLevelsAreRejected() {
        let tooDeep = "nesting deeper than 64 at byte 64"
        #expect(parseError(nested(65, open: "[", close: "]"))?.description == tooDeep)
        #expect(parseError(nested(64, open: "[", close: "]", inner: "{}"))?.description == tooDeep)
        #expect(parseError(nested(64, open: "[", close: "]", inner: "[]"))?.description == tooDeep)
        // Each {"a": is five bytes: the 65th brace is at 64 × 5.
        #expect(parseError(nested(65, open: #"{"a":"#, close: "}"))?.description
                == "nesting deeper than 64 at byte 320")
    }

    @Test func hostileNestingDoesNotExhaustTheStack() {
        #expect(parseError(String(repeating: "[", count: 1_000_000))?.description
                == "nesting deeper than 64 at byte 64")
        #expect(parseError(String(repeating: #"{"":"#, count: 200_000))?.reason == "nesting deeper than 64")
    }

    // MARK: numbers out of range

    @Test(arguments: [
        "1e400", "-1e400", "1E309", "1" + String(repeating: "0", count: 400),
        "-" + String(repeating: "9", count: 310), "1" + String(repeating: "0", count: 400) + ".5",
    ])
    func hugeNumbersBecomeNonFinite(text: String) throws {
        let number = try #require(try JSONParser.parse(text).doubleValue)
        #expect(!number.isFinite)
        #expect(number.sign == (text.hasPrefix("-") ? .minus : .plus))
    }

    @Test func manyValues() throws {
        let count = 10_000
        let text = "[" + (0..<count).map { "\($0)" }.joined(separator: ",") + "]"
        let items = try #require(try JSONParser.parse(text).arrayValue)
        #expect(items.count == count)
        #expect(items.last == .number(9_999))
    }
}
