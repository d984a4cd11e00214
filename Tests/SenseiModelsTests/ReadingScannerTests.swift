import SenseiModels
import SenseiTestSupport
import Testing

/// The server clock in these tests: 2025-01-09T12:00:00Z.
private let now = Timestamp(milliseconds: 1_736_424_000_000)

private func fast(_ body: String) -> (readings: [ReadingInput], isBatch: Bool)? {
    ReadingScanner.scan(Array(body.utf8), now: now)
}

/// The general path's answer: the readings, or nil when it refuses the body.
private func general(_ body: String) -> (readings: [ReadingInput], isBatch: Bool)? {
    guard let json = try? JSONParser.parse(body),
          let readings = try? ReadingPayload.parse(json, now: now) else { return nil }
    return (readings, json["data"] != nil)
}

/// The fast path may decline a body, but what it accepts it must read
/// exactly as the general parser does.
private func expectAgreement(_ body: String, sourceLocation: SourceLocation = #_sourceLocation) {
    guard let scanned = fast(body) else { return }
    let expected = general(body)
    #expect(expected != nil, "fast path accepted what the general path refuses: \(body)", sourceLocation: sourceLocation)
    guard let expected else { return }
    #expect(scanned.isBatch == expected.isBatch, "\(body)", sourceLocation: sourceLocation)
    #expect(scanned.readings.count == expected.readings.count, "\(body)", sourceLocation: sourceLocation)
    for (a, b) in zip(scanned.readings, expected.readings) {
        // Bit for bit: -0.0 and 0.0 are told apart.
        #expect(a.timestamp == b.timestamp && a.value.bitPattern == b.value.bitPattern, "\(body)",
                sourceLocation: sourceLocation)
    }
}

@Suite struct ReadingScannerTests {
    @Test(arguments: [
        #"{"value": 23.5}"#,
        #"{"value": "23.5"}"#,
        #"{"value": " 23.5 "}"#,
        #"{"value": true}"#,
        #"{"timestamp": "2025-01-09T12:00:00Z", "value": 23.5}"#,
        #"{"value": 23.5, "timestamp": null}"#,
        #"{"value":-0.125,"timestamp":1736424000.5}"#,
        #"{"data": [{"timestamp": 1736424000, "value": 23.1}, {"timestamp": "2025-01-09T11:59:00.250Z", "value": 23.2}]}"#,
        "\n { \"data\" :\t[ { \"value\" : 1 } ,{\"value\":2}\r\n] } \n",
        #"{"data":[{"timestamp":1000000000,"value":18.0},{"timestamp":1000000001,"value":19.1}]}"#,
    ])
    func deviceShapesTakeTheFastPathAndReadTheSame(body: String) {
        #expect(fast(body) != nil, "\(body)")
        expectAgreement(body)
    }

    @Test(arguments: [
        "", "null", "[]", "{}", #"{"data": []}"#, #"{"data": {}}"#, #"{"value": 1, "value": 2}"#,
        #"{"value": 1, "unit": "C"}"#, #"{"value": "2\u0033"}"#, #"{"value": "23,5"}"#, #"{"value": "°"}"#,
        #"{"value": 1e999}"#, #"{"value": "nan"}"#, #"{"value": null}"#, #"{"value": [1]}"#,
        #"{"timestamp": "2030-01-01T00:00:00Z", "value": 1}"#, #"{"timestamp": "yesterday", "value": 1}"#,
        #"{"data": [{"value": 1}], "extra": true}"#, #"{"data": [{"value": 1},]}"#, #"{"value": 1} x"#,
        #"{"value": 01}"#, #"{"value": 1.}"#, #"{"value": -}"#, #"{"value": tru}"#, #"{"data": [{"value": 1}"#,
    ])
    func otherShapesAndErrorsAreLeftToTheGeneralParser(body: String) {
        #expect(fast(body) == nil, "\(body)")
    }

    /// Random bodies near the device shapes, and byte mutations of them.
    @Test(arguments: 0..<4)
    func randomBodiesAgreeWithTheGeneralParser(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var accepted = 0
        for _ in 0..<3_000 {
            var body = Array(randomBody(&random).utf8)
            if random.next() % 3 == 0 && !body.isEmpty {
                for _ in 0...(random.next() % 3) {
                    let index = Int(random.next() % UInt64(body.count))
                    let pool = Array(#"{}[]:,"-+.eE0123456789 tfnul\"#.utf8)
                    body[index] = pool[Int(random.next() % UInt64(pool.count))]
                }
            }
            let text = String(decoding: body, as: UTF8.self)
            if fast(text) != nil { accepted += 1 }
            expectAgreement(text)
        }
        #expect(accepted > 500, "the fast path should take most well-formed bodies")
    }

    /// Decimals read by the shortcut equal Swift's full decimal parser.
    @Test func numbersMatchTheFullDecimalParser() throws {
        var random = SplitMix64(seed: 7)
        for _ in 0..<20_000 {
            let text = randomNumber(&random)
            let parsed = try JSONParser.parse("[\(text)]")[0]?.doubleValue
            let expected = Double(text)
            #expect(parsed?.bitPattern == expected?.bitPattern || (text.hasPrefix("-0") && Double(text) == 0),
                    "\(text): \(String(describing: parsed)) vs \(String(describing: expected))")
        }
    }
}

private func randomNumber(_ random: inout SplitMix64) -> String {
    let digits = "0123456789".map(String.init)
    var text = random.next() % 4 == 0 ? "-" : ""
    let integer = Int(random.next() % 17)
    text += integer == 0 ? "0" : String(1 + random.next() % 9) + (0..<integer - 1).map { _ in digits[Int(random.next() % 10)] }.joined()
    if random.next() % 3 != 0 {
        text += "." + (0...(random.next() % 24)).map { _ in digits[Int(random.next() % 10)] }.joined()
    }
    if random.next() % 8 == 0 { text += "e" + String(Int(random.next() % 40) - 20) }
    return text
}

private func randomBody(_ random: inout SplitMix64) -> String {
    func pick<T>(_ options: [T]) -> T { options[Int(random.next() % UInt64(options.count))] }
    func value() -> String {
        pick([randomNumber(&random), "\"\(randomNumber(&random))\"", "true", "false", "null", "\" 7 \"", "\"x\"", "1e400"])
    }
    func timestamp() -> String {
        pick([String(1_700_000_000 + Int(random.next() % 40_000_000)), "\(1_736_424_000 + Int(random.next() % 1_200)).5",
              "\"2025-01-09T11:00:00Z\"", "\"2025-01-09T12:30:00Z\"", "null", "\"1736424000\"", "-5", "1e12"])
    }
    func reading() -> String {
        var members = ["\"value\": \(value())"]
        if random.next() % 2 == 0 { members.append("\"timestamp\": \(timestamp())") }
        if random.next() % 10 == 0 { members.append(pick(["\"value\": 1", "\"note\": 1", "\"timestamp\": 5"])) }
        if random.next() % 2 == 0 { members.reverse() }
        return "{" + members.joined(separator: pick([",", ", ", " ,\n"])) + "}"
    }
    if random.next() % 3 == 0 { return reading() }
    let items = (0...(random.next() % 6)).map { _ in reading() }
    return "{\"data\": [" + items.joined(separator: ",") + "]}"
}

