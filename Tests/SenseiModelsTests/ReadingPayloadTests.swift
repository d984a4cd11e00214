import SenseiModels
import Testing

/// The server clock in these tests: 2025-01-09T12:00:00Z.
private let now = Timestamp(milliseconds: 1_736_424_000_000)

private func readings(_ body: String) throws -> [ReadingInput] {
    try ReadingPayload.parse(try JSONParser.parse(body), now: now)
}

/// The error a body is refused with, or nil when it is accepted.
private func refusal(_ body: String) throws -> APIError? {
    let json = try JSONParser.parse(body)
    do {
        _ = try ReadingPayload.parse(json, now: now)
        return nil
    } catch {
        return error
    }
}

private func input(_ milliseconds: Int64?, _ value: Double) -> ReadingInput {
    ReadingInput(timestamp: milliseconds.map(Timestamp.init(milliseconds:)), value: value)
}

@Suite struct ReadingPayloadTests {
    // MARK: shapes from the wire contract

    @Test func singleReadingWithoutTimestamp() throws {
        #expect(try readings(#"{"value": 23.5}"#) == [input(nil, 23.5)])
    }

    @Test func singleReadingWithStringValueAndTimestamp() throws {
        #expect(try readings(#"{"value": "23.5", "timestamp": "2025-01-09T12:00:00Z"}"#)
                == [input(1_736_424_000_000, 23.5)])
    }

    @Test func batch() throws {
        let body = #"{"data": [{"timestamp": 1736424000, "value": 23.1}, "#
            + #"{"timestamp": "2025-01-09T11:59:30.250Z", "value": 23.2}, {"value": "7"}, "#
            + #"{"value": false, "timestamp": null}]}"#
        #expect(try readings(body) == [
            input(1_736_424_000_000, 23.1), input(1_736_423_970_250, 23.2), input(nil, 7), input(nil, 0),
        ])
    }

    @Test func nullTimestampMeansReceiveTime() throws {
        #expect(try readings(#"{"value": 1, "timestamp": null}"#) == [input(nil, 1)])
    }

    @Test func otherMembersAreIgnored() throws {
        #expect(try readings(#"{"value": 1, "sensor_code": "x", "units": "°C"}"#) == [input(nil, 1)])
    }

    // MARK: values

    @Test(arguments: [
        ("23.5", 23.5), ("-4", -4), ("0", 0), ("1e3", 1_000), ("-0.25", -0.25), ("1.7976931348623157e308", 1.7976931348623157e308),
        ("true", 1), ("false", 0),
        (#""23.5""#, 23.5), (#"" 23.50""#, 23.5), (#""23.5 ""#, 23.5), (#""\t-7\n""#, -7),
        (#""+4""#, 4), (#""1e3""#, 1_000), (#""1E-2""#, 0.01), (#""2.5e+1""#, 25), (#""5.""#, 5), (#"".5""#, 0.5),
        (#""007""#, 7), (#""-0""#, 0), (#""123456.789""#, 123_456.789),
        // Regression: Arduino's println ends a line with CR LF, which Swift sees as one
        // Character; the trim compared Characters and so kept it and refused the value.
        (#"" 23.5\r\n""#, 23.5), (#""23.5\r""#, 23.5), (#""\r\n\r\n1""#, 1),
    ] as [(String, Double)])
    func acceptedValues(json: String, expected: Double) throws {
        #expect(try readings(#"{"value": \#(json)}"#) == [input(nil, expected)])
        #expect(ReadingPayload.value(from: try JSONParser.parse(json)) == .success(expected))
    }

    @Test(arguments: [
        "nan", "NaN", "inf", "-inf", "+inf", "infinity", "Infinity", "0x1p3", "0x10", "0X1P3", "", " ", "\\t",
        "abc", "23,5", "1 2", "23.5°C", "e5", "1e", "1e+", ".", "+", "-", "--1", "+-1", "1.2.3", "1..2",
        "١٢", "１２", "0b101", "1_000", "½", "23.5f", "null", "true",
    ])
    func refusedStrings(text: String) throws {
        #expect(try refusal(#"{"value": "\#(text)"}"#) == .unprocessable(#"value: "\#(text)" is not a number"#))
    }

    @Test func refusedStringIsQuotedAsJSON() throws {
        #expect(try refusal(#"{"value": "a\"b"}"#) == .unprocessable(#"value: "a\"b" is not a number"#))
        #expect(try refusal(#"{"value": "tab\there"}"#) == .unprocessable(#"value: "tab\there" is not a number"#))
    }

    @Test func longRefusedStringIsCut() throws {
        let long = String(repeating: "x", count: 41)
        let shown = String(repeating: "x", count: 40)
        #expect(try refusal(#"{"value": "\#(long)"}"#) == .unprocessable(#"value: "\#(shown)…" is not a number"#))
        let forty = String(repeating: "y", count: 40)
        #expect(try refusal(#"{"value": "\#(forty)"}"#) == .unprocessable(#"value: "\#(forty)" is not a number"#))
    }

    @Test(arguments: ["1e999", "-1e999", "1e309"])
    func outOfRangeStrings(text: String) throws {
        #expect(try refusal(#"{"value": "\#(text)"}"#) == .unprocessable(#"value: "\#(text)" is out of range"#))
    }

    @Test(arguments: ["1e400", "-1e400"])
    func outOfRangeNumbers(text: String) throws {
        #expect(try refusal(#"{"value": \#(text)}"#) == .unprocessable("value: number is out of range"))
    }

    @Test func nonFiniteNumbersAreRefused() {
        #expect(reason(ReadingPayload.value(from: .number(.nan))) == "number is out of range")
        #expect(reason(ReadingPayload.value(from: .number(-.infinity))) == "number is out of range")
    }

    @Test(arguments: [
        ("null", "null"), ("[]", "an array"), ("[1]", "an array"), ("{}", "an object"), (#"{"v":1}"#, "an object"),
    ] as [(String, String)])
    func wrongValueTypes(json: String, typeName: String) throws {
        #expect(try refusal(#"{"value": \#(json)}"#)
                == .unprocessable("value: must be a number, a numeric string or a boolean, found \(typeName)"))
    }

    @Test(arguments: ["{}", #"{"timestamp": "2025-01-09T12:00:00Z"}"#, #"{"Value": 1}"#, #"{"val": 1}"#])
    func missingValue(body: String) throws {
        #expect(try refusal(body) == .unprocessable("value is missing"))
    }

    // MARK: body shapes

    @Test(arguments: [
        ("[]", "an array"), (#"[{"value": 1}]"#, "an array"), ("23.5", "a number"), (#""23.5""#, "a string"),
        ("null", "null"), ("true", "a boolean"),
    ] as [(String, String)])
    func bodyMustBeAnObject(body: String, typeName: String) throws {
        #expect(try refusal(body)
                == .unprocessable("body must be a JSON object with \"value\" or \"data\", found \(typeName)"))
    }

    @Test(arguments: [
        (#"{"data": {}}"#, "an object"), (#"{"data": null}"#, "null"), (#"{"data": "x"}"#, "a string"),
        (#"{"data": 1}"#, "a number"),
    ] as [(String, String)])
    func dataMustBeAnArray(body: String, typeName: String) throws {
        #expect(try refusal(body) == .unprocessable("data must be an array of readings, found \(typeName)"))
    }

    @Test func emptyBatchIsRefused() throws {
        #expect(try refusal(#"{"data": []}"#) == .unprocessable("data holds no readings"))
    }

    @Test(arguments: [
        (#"{"data": [{"value": 1}, 2]}"#, "data[1] must be an object, found a number"),
        (#"{"data": [[]]}"#, "data[0] must be an object, found an array"),
        (#"{"data": [{"value": 1}, {"value": 2}, null]}"#, "data[2] must be an object, found null"),
        (#"{"data": [{"value": 1}, {"value": 2}, {"value": "x"}]}"#, #"data[2].value: "x" is not a number"#),
        (#"{"data": [{"value": 1}, {"value": 2}, {"timestamp": 0}]}"#, "data[2].value is missing"),
        (#"{"data": [{"value": 1}, {"value": null}]}"#,
         "data[1].value: must be a number, a numeric string or a boolean, found null"),
        (#"{"data": [{"value": 1}, {"value": 2, "timestamp": "soon"}]}"#,
         #"data[1].timestamp: "soon" is not an RFC 3339 time or epoch seconds in years 1 to 9999"#),
        // All or nothing: the first bad item is named, the good ones are not kept.
        (#"{"data": [{"value": 1}, {"value": "nan"}, {"value": 3}, {}]}"#, #"data[1].value: "nan" is not a number"#),
        (#"{"data": [{"value": 1}, {"value": 2}, {"value": 3}, {"value": 4}, {"value": 5}, {"value": 6}, "#
            + #"{"value": 7}, {"value": 8}, {"value": 9}, {"value": 10}, {"value": "ten"}]}"#,
         #"data[10].value: "ten" is not a number"#),
    ] as [(String, String)])
    func batchErrorsNameTheItem(body: String, message: String) throws {
        let error = try #require(try refusal(body))
        #expect(error == .unprocessable(message))
        #expect(error.status == 422)
    }

    // MARK: timestamps

    @Test(arguments: [
        ("1736424000", 1_736_424_000_000),
        ("1736424000.25", 1_736_424_000_250),
        ("-1.5", -1_500),
        ("0", 0),
        (#""1736424000""#, 1_736_424_000_000),
        (#""1736424000.5""#, 1_736_424_000_500),
        (#""2025-01-09T13:00:00+01:00""#, 1_736_424_000_000),
        (#""2025-01-09 11:00:00.123z""#, 1_736_420_400_123),
        (#""1970-01-01T00:00:00Z""#, 0),
        (#""0001-01-01T00:00:00Z""#, -62_135_596_800_000),
        // Exactly ten minutes ahead is within the allowed skew.
        (#""2025-01-09T12:10:00Z""#, 1_736_424_600_000),
        ("1736424600", 1_736_424_600_000),
        (#""2025-01-09T12:09:59.999Z""#, 1_736_424_599_999),
    ] as [(String, Int64)])
    func acceptedTimestamps(json: String, milliseconds: Int64) throws {
        #expect(try readings(#"{"value": 1, "timestamp": \#(json)}"#) == [input(milliseconds, 1)])
    }

    @Test(arguments: [
        (#""2025-01-09T12:10:00.001Z""#, "2025-01-09T12:10:00.001Z"),
        ("1736424600.001", "2025-01-09T12:10:00.001Z"),
        ("1736424601", "2025-01-09T12:10:01Z"),
        (#""2025-01-09T13:10:01+01:00""#, "2025-01-09T12:10:01Z"),
        (#""9999-12-31T23:59:59.999Z""#, "9999-12-31T23:59:59.999Z"),
    ] as [(String, String)])
    func timestampsTooFarAheadAreRefused(json: String, shown: String) throws {
        #expect(try refusal(#"{"value": 1, "timestamp": \#(json)}"#) == .unprocessable(
            "timestamp: \(shown) is more than 10 minutes ahead of the server clock (2025-01-09T12:00:00Z)"))
    }

    @Test(arguments: [
        (#""yesterday""#, #""yesterday""#),
        (#""2025-02-30T00:00:00Z""#, #""2025-02-30T00:00:00Z""#),
        (#""2025-01-09T24:00:00Z""#, #""2025-01-09T24:00:00Z""#),
        (#""""#, #""""#),
        (#""1e9""#, #""1e9""#),
        ("1e12", "1000000000000"),
        ("-1e11", "-100000000000"),
        ("253402300800", "253402300800"),
    ] as [(String, String)])
    func invalidTimestamps(json: String, shown: String) throws {
        #expect(try refusal(#"{"value": 1, "timestamp": \#(json)}"#) == .unprocessable(
            "timestamp: \(shown) is not an RFC 3339 time or epoch seconds in years 1 to 9999"))
    }

    /// Regression: a number too big for a double was named as `null` in the message.
    @Test(arguments: ["1e400", "-1e400"])
    func outOfRangeTimestampNumbers(json: String) throws {
        #expect(try refusal(#"{"value": 1, "timestamp": \#(json)}"#) == .unprocessable("timestamp: number is out of range"))
        #expect(try refusal(#"{"data": [{"value": 1}, {"value": 1, "timestamp": \#(json)}]}"#)
                == .unprocessable("data[1].timestamp: number is out of range"))
    }

    @Test(arguments: [("true", "a boolean"), ("[]", "an array"), (#"{"s": 1}"#, "an object")] as [(String, String)])
    func wrongTimestampTypes(json: String, typeName: String) throws {
        #expect(try refusal(#"{"value": 1, "timestamp": \#(json)}"#) == .unprocessable(
            "timestamp: must be an RFC 3339 string or epoch seconds, found \(typeName)"))
    }

    @Test func skewIsTenMinutes() {
        #expect(ReadingPayload.maximumClockSkew == 600_000)
        let limit = ReadingPayload.timestamp(from: .number(1_736_424_600), now: now)
        #expect(limit == .success(Timestamp(milliseconds: 1_736_424_600_000)))
        #expect(reason(ReadingPayload.timestamp(from: .number(1_736_424_600.001), now: now))
                == "2025-01-09T12:10:00.001Z is more than 10 minutes ahead of the server clock (2025-01-09T12:00:00Z)")
        // The limit follows the clock it is given.
        #expect(ReadingPayload.timestamp(from: .number(1_736_424_600.001), now: now.adding(milliseconds: 1))
                == .success(Timestamp(milliseconds: 1_736_424_600_001)))
    }
}

private func reason<T>(_ result: Result<T, ReadingPayload.Problem>) -> String? {
    if case .failure(let problem) = result { return problem.reason }
    return nil
}
