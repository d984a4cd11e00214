import SenseiModels

/// The JSON bodies of `RequestFuzzer`: each route's body, valid in shape
/// most of the time, with extreme numbers, odd timestamps, deep nesting,
/// duplicate keys and odd batch shapes, and byte-level damage on top.
extension RequestFuzzer {
    /// A body for the route, valid in shape most of the time, mutated sometimes.
    mutating func body(for path: [UInt8]) -> [UInt8] {
        let route = String(decoding: path, as: UTF8.self)
        let kind = chance(85) ? (route.hasSuffix("/data") ? 0 : route == "/sensor_data" ? 1 : route == "/sensors" ? 2 : 3)
                              : int(5)
        let text: String = switch kind {
        case 0: chance(60) ? reading() : batch()
        case 1: legacy()
        case 2: sensorFields(withCode: true)
        case 3: sensorFields(withCode: false)
        default: pick([value(), "[]", "{}", "null", #"{"data":"#, batch(), reading()])
        }
        var body = bytes(text)
        if chance(25) { mutate(&body) }
        return body
    }

    /// A JSON body of any kind, for the parser alone.
    mutating func anyBody() -> [UInt8] {
        body(for: bytes(pick(["/sensors/s0/data", "/sensor_data", "/sensors", "/sensors/s0"])))
    }

    private mutating func reading() -> String {
        var members: [String] = []
        if chance(92) { members.append(#""value":"# + value()) }
        if chance(55) { members.append(#""timestamp":"# + timestamp()) }
        if chance(5) { members.append(pick([#""unit":"C""#, #""data":null"#, #""sensor_code":"s1""#])) }
        if chance(5) { members.append(#""value":"# + value()) }  // a duplicate key: the last one counts
        return "{" + shuffled(members).joined(separator: ",") + "}"
    }

    private mutating func batch() -> String {
        let count = pick([0, 1, 2, 3, 5, 10, 20, int(200)])
        var items = (0..<count).map { _ in chance(95) ? reading() : pick(["1", "null", "[]", #""x""#, "[{}]"]) }
        if chance(10), let first = items.first { items.append(first) }  // the same timestamp twice
        let data = chance(95) ? "[" + items.joined(separator: ",") + "]" : pick(["{}", "null", "1", #""[]""#])
        return chance(95) ? #"{"data":\#(data)}"# : #"{"data":\#(data),"value":1}"#
    }

    private mutating func legacy() -> String {
        var members: [String] = []
        if chance(90) {
            members.append(#""sensor_code":"# + (chance(85) ? jsonString(pick(Self.codes)) : pick(
                ["1", "null", #""""#, #""a b""#, #""\u00fc""#, jsonString(String(repeating: "x", count: 51))])))
        }
        if chance(90) { members.append(#""value":"# + value()) }
        return "{" + shuffled(members).joined(separator: ",") + "}"
    }

    private mutating func sensorFields(withCode: Bool) -> String {
        var members: [String] = []
        if withCode { members.append(#""code":"# + jsonString(pick(Self.codes + ["new\(int(20))", "", "a b", "ü"]))) }
        if chance(50) { members.append(#""name":"# + pick([text(), "null", "1", #""""#])) }
        if chance(40) { members.append(#""units":"# + pick([text(), jsonString("°C"), "null", "[]"])) }
        if chance(40) { members.append(#""valueType":"# + jsonString(pick(["float", "int", "bool", "double", ""]))) }
        if chance(10) { members.append(pick([#""retentionDays":7"#, #""retentionDays":0"#, #""id":5"#, #""count":1"#])) }
        return "{" + shuffled(members).joined(separator: ",") + "}"
    }

    private mutating func value() -> String {
        switch int(14) {
        case 0..<6: return pick(["23.5", "0", "-0", "-0.0", "1", "-1", "0.1", "1E2", "1e+2", "2.5e-3", "100000"])
        case 6, 7: return String(Double(Int64(truncatingIfNeeded: random.next()) % 2_000_000) / 8)
        case 8: return pick([#""23.5""#, #"" 23.5 ""#, #""23.5\r\n""#, #""1e999""#, #""-0""#, #""nan""#,
                                #""NaN""#, #""inf""#, #""Infinity""#, #""0x10""#, #""""#, #"" ""#, #""1_000""#,
                                #""+5""#, #"".5""#, #""5.""#, #""1e""#, #""--1""#, #""٣""#, #""２３""#,
                                #""\u0000""#, #""12\u00003""#, #""\ud800""#])
        case 9: return pick(["true", "false"])
        case 10:
            let depth = pick([1, 2, 63, 64, 65, 300])
            return pick(["null", "[]", "{}", #"{"value":1}"#, String(repeating: "[", count: depth) + "1"
                            + String(repeating: "]", count: depth)])
        case 11: return pick(["1e999", "-1e999", "1e308", "1.7976931348623157e308", "4.9e-324", "1e-400",
                             "123456789012345678901234567890", "9007199254740993", "-9223372036854775809",
                             "18446744073709551616", "0.000000000000000000000000000001"])
        default: return String(Int64(truncatingIfNeeded: random.next()) % 1_000_000)
        }
    }

    private mutating func timestamp() -> String {
        switch int(10) {
        case 0..<5: return jsonString(time())
        case 5..<9: return pick(["\(now / 1000 - Int64(int(30_000_000)))", "\(Double(now - Int64(int(9_000_000))) / 1000)",
                                 "1736424000", "1736424000.5", "0", "-0", "-1", "1e999", "-1e999", "253402300800",
                                 "-62135596801", "1e9", "\(now / 1000 + 3600)", "99999999999999999999"])
        default: return pick(["null", "true", "{}", "[]", #""""#])
        }
    }

    /// A time as a client might write one: valid, near now, in the future, or not a time.
    mutating func time() -> String {
        switch int(4) {
        case 0:
            return Timestamp(milliseconds: now - Int64(int(400_000_000))).rfc3339
        case 1:
            let seconds = now / 1000 + Int64(int(1_000_000)) - 900_000
            return chance(50) ? "\(seconds)" : "\(seconds).\(int(1000))"
        default:
            return pick(["2025-01-09T12:00:00Z", "2025-01-09T12:00:00.5Z", "2025-01-09T12:00:00.123456789Z",
                         "2025-01-09t12:00:00z", "2025-01-09 12:00:00Z", "2025-01-09T12:00:00+01:00",
                         "2025-01-09T12:00:00-23:59", "2025-01-09T12:00:00 01:00", "0001-01-01T00:00:00Z",
                         "9999-12-31T23:59:59.999Z", "0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00",
                         "2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z", "2025-01-09T24:00:00Z",
                         "2025-13-01T00:00:00Z", "2025-01-09T12:00:60Z", "2025-01-09", "0000-01-01T00:00:00Z",
                         "-62135596800", "253402300799.999", "253402300800", "-", "--1", ".5", "1e9", "", "now",
                         Timestamp(milliseconds: now + 11 * 60_000).rfc3339])
        }
    }

    private mutating func text() -> String {
        jsonString(pick(["Kitchen", "Salle de bain", "°C", "😀", "a\"b", "tab\there", String(repeating: "n", count: 201)]))
    }

    /// Byte-level damage: flips, inserts, deletions, tokens spliced in, a cut.
    mutating func mutate(_ body: inout [UInt8]) {
        for _ in 0...int(3) {
            let index = int(body.count + 1)
            switch int(6) {
            case 0 where index < body.count: body[index] = UInt8(truncatingIfNeeded: random.next())
            case 1: body.insert(UInt8(truncatingIfNeeded: random.next()), at: index)
            case 2 where index < body.count: body.remove(at: index)
            case 3, 4:
                body.insert(contentsOf: bytes(pick([#"\u0000"#, #"\ud800"#, "1e999", "{", "]", ",", "\"", "null", "-0",
                                                     ":", "\\", "[[[[[[[[", #""value":"#, " "]) as String), at: index)
            default: body = Array(body.prefix(index))
            }
        }
    }
}
