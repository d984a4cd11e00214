import SenseiModels
import Testing

private let formattedNumbers: [(Double, String)] = [
    (0, "0"),
    (-0.0, "0"),
    (1, "1"),
    (-1, "-1"),
    (23, "23"),
    (1_736_424_000, "1736424000"),
    (1e15, "1000000000000000"),
    (9_007_199_254_740_991, "9007199254740991"),
    (-9_007_199_254_740_991, "-9007199254740991"),
    (23.5, "23.5"),
    (-23.5, "-23.5"),
    (0.1, "0.1"),
    (0.001, "0.001"),
    (100.25, "100.25"),
    (123_456.789, "123456.789"),
    (1.0 / 3, "0.3333333333333333"),
    (2.0 / 3, "0.6666666666666666"),
    (1e-7, "1e-07"),
    (2.5e-5, "2.5e-05"),
    (.leastNonzeroMagnitude, "5e-324"),
    (1e20, "1e+20"),
    (-1e21, "-1e+21"),
    (1.7976931348623157e308, "1.7976931348623157e+308"),
]

@Suite struct JSONWriterTests {
    @Test func keysKeepTheOrderWritten() {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("zeta")
        writer.int(1)
        writer.key("alpha")
        writer.int(2)
        writer.key("mid")
        writer.int(3)
        writer.endObject()
        #expect(writer.string == #"{"zeta":1,"alpha":2,"mid":3}"#)
        #expect(writer.bytes == Array(#"{"zeta":1,"alpha":2,"mid":3}"#.utf8))
    }

    @Test func nestedContainersAndCommas() {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("a")
        writer.beginArray()
        writer.int(1)
        writer.number(2.5)
        writer.beginObject()
        writer.key("b")
        writer.null()
        writer.endObject()
        writer.beginArray()
        writer.endArray()
        writer.beginObject()
        writer.endObject()
        writer.endArray()
        writer.key("c")
        writer.bool(true)
        writer.key("d")
        writer.bool(false)
        writer.key(String("dynamic"))
        writer.string("x")
        writer.endObject()
        #expect(writer.string == #"{"a":[1,2.5,{"b":null},[],{}],"c":true,"d":false,"dynamic":"x"}"#)
    }

    @Test func topLevelArrayOfScalars() {
        var writer = JSONWriter(capacity: 0)
        writer.beginArray()
        writer.string("x")
        writer.number(1.5)
        writer.null()
        writer.bool(false)
        writer.int(-7)
        writer.timestamp(Timestamp(milliseconds: 1_736_424_000_000))
        writer.timestamp(Timestamp(milliseconds: 1_736_424_000_042))
        writer.endArray()
        #expect(writer.string == #"["x",1.5,null,false,-7,"2025-01-09T12:00:00Z","2025-01-09T12:00:00.042Z"]"#)
    }

    @Test func emptyWriterAndEmptyContainers() {
        #expect(JSONWriter().string == "")
        #expect(JSONWriter().bytes.isEmpty)
        var writer = JSONWriter()
        writer.beginArray()
        writer.beginObject()
        writer.endObject()
        writer.beginObject()
        writer.endObject()
        writer.endArray()
        #expect(writer.string == "[{},{}]")
    }

    @Test func escapesStrings() {
        var writer = JSONWriter()
        writer.string("a\"b\\c\nd\re\tf\u{08}\u{0C}\u{0}\u{1F}/\u{7F}é😀 °C\u{2028}")
        let expected = #""a\"b\\c\nd\re\tf\u0008\u000c\u0000\u001f/"# + "\u{7F}é😀 °C\u{2028}\""
        #expect(writer.string == expected)
    }

    @Test func escapesDynamicKeys() {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key(String("we\"ird\nkey"))
        writer.int(1)
        writer.key(String("°C"))
        writer.int(2)
        writer.endObject()
        #expect(writer.string == #"{"we\"ird\nkey":1,"°C":2}"#)
    }

    @Test(arguments: [
        (Int64(0), "0"), (-7, "-7"), (42, "42"), (1_234_567_890, "1234567890"),
        (Int64.max, "9223372036854775807"), (Int64.min, "-9223372036854775808"),
    ] as [(Int64, String)])
    func integers(value: Int64, expected: String) {
        var writer = JSONWriter()
        writer.int(value)
        #expect(writer.string == expected)
    }

    @Test func intOverload() {
        var writer = JSONWriter()
        writer.beginArray()
        writer.int(Int(1_234))
        writer.int(Int(-5))
        writer.endArray()
        #expect(writer.string == "[1234,-5]")
    }

    /// Integral numbers below 2^53 print without a fraction; others in the
    /// shortest form that reads back as the same double.
    @Test(arguments: formattedNumbers)
    func numbers(value: Double, expected: String) throws {
        var writer = JSONWriter()
        writer.number(value)
        #expect(writer.string == expected)
        #expect(formatNumber(value) == expected)
        #expect(try JSONParser.parse(expected) == .number(value))
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteNumbersBecomeNull(value: Double) {
        var writer = JSONWriter()
        writer.beginArray()
        writer.number(value)
        writer.endArray()
        #expect(writer.string == "[null]")
        #expect(formatNumber(value) == "null")
    }

    @Test func numbersRoundTripExactly() throws {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        var values: [Double] = [0.1, 0.2, 0.3, 1e-300, .leastNonzeroMagnitude, 2.2250738585072014e-308, 9_007_199_254_740_992]
        for _ in 0..<2_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let candidate = Double(bitPattern: state)
            if candidate.isFinite { values.append(candidate) }
            values.append(Double(Int64(bitPattern: state) >> 20) / 1_000)
        }
        var writer = JSONWriter()
        writer.beginArray()
        values.forEach { writer.number($0) }
        writer.endArray()
        let parsed = try #require(try JSONParser.parse(writer.bytes).arrayValue)
        #expect(parsed == values.map(JSONValue.number))
    }

    /// Values with up to three decimals take a short path of their own; its
    /// text must be what `Double.description` writes, at the edges of the
    /// path (0.001, 1e9, three decimals) and for values that only nearly
    /// have three decimals.
    @Test func shortDecimalsAreWrittenAsDescriptionWritesThem() {
        var values: [Double] = [0.001, 0.0011, 0.0009, 0.005, 0.1 + 0.2, 999_999_999.999, 1e9 - 0.5, 1e9 + 0.5,
                                 123.4565, 0.125, 1.05, 2.675, 100.015, 8_388_608.1, 16_777_217.25]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<200_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let scale = [10.0, 100, 1_000, 10_000][Int(state >> 62)]
            let magnitude = [1e3, 1e6, 1e9, 1e12][Int(state >> 60 & 3)]
            values.append(Double(Int64(state >> 20) % Int64(magnitude * scale)) / scale)
            values.append(Double(bitPattern: 0x3F50_0000_0000_0000 + state % 0x0150_0000_0000_0000))
        }
        var mismatches: [Double] = []
        for value in values + values.map(-) where value.isFinite && value.rounded() != value {
            if formatNumber(value) != value.description { mismatches.append(value) }
        }
        #expect(values.count > 400_000)
        #expect(mismatches.isEmpty, "first: \(mismatches.prefix(5).map { "\($0): \(formatNumber($0))" })")
    }

    @Test func valueWritesObjectKeysSorted() {
        let value = JSONValue.object([
            "b": .number(1), "a": .array([.bool(true), .null]), "C": .string("x"), "é": .object([:]),
        ])
        var writer = JSONWriter()
        writer.value(value)
        #expect(writer.string == #"{"C":"x","a":[true,null],"b":1,"é":{}}"#)
        #expect(value.serialized == #"{"C":"x","a":[true,null],"b":1,"é":{}}"#)
    }

    @Test func valueRoundTrip() throws {
        let text = #"{"data":[{"timestamp":"2025-01-09T12:00:00Z","value":23.5},{"ok":false,"v":-0.25}],"#
            + #""n":null,"s":"quote \" backslash \\ tab \t nul \u0000 é","z":[[],{}]}"#
        let value = try JSONParser.parse(text)
        #expect(value.serialized == text)
        #expect(try JSONParser.parse(value.serialized) == value)
    }
}
