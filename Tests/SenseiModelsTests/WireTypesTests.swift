import Foundation
import SenseiModels
import Testing

private let noon = Timestamp(milliseconds: 1_736_424_000_000) // 2025-01-09T12:00:00Z
private let ten = Timestamp(milliseconds: 1_736_416_800_000) // 2025-01-09T10:00:00Z

private let external = Sensor(
    id: 1, code: "temperature_ext", name: "External Temperature", units: "°C", valueType: .float,
    createdAt: ten, updatedAt: noon, latest: Reading(timestamp: noon, value: 23.5), count: 1_234)

private let externalJSON = #"{"id":1,"code":"temperature_ext","name":"External Temperature","units":"°C","#
    + #""valueType":"float","createdAt":"2025-01-09T10:00:00Z","updatedAt":"2025-01-09T12:00:00Z","#
    + #""latest":{"timestamp":"2025-01-09T12:00:00Z","value":23.5},"count":1234,"retentionDays":null,"labels":{},"#
    + #""kind":"gauge"}"#

private func written(_ write: (inout JSONWriter) -> Void) -> String {
    var writer = JSONWriter()
    write(&writer)
    return writer.string
}

private func wireError<T>(_ make: () throws(WireFormatError) -> T) -> WireFormatError? {
    do {
        _ = try make()
        return nil
    } catch {
        return error
    }
}

@Suite struct WireTypesTests {
    // MARK: Sensor

    @Test func sensorKeyOrder() {
        #expect(written(external.write) == externalJSON)
    }

    @Test func sensorWithoutReadings() {
        let sensor = Sensor(
            id: 9_007_199_254_740_991, code: "door-1", name: "Front \"door\"", units: "", valueType: .bool,
            createdAt: Timestamp(milliseconds: -1), updatedAt: Timestamp(milliseconds: 0), latest: nil, count: 0)
        let expected = #"{"id":9007199254740991,"code":"door-1","name":"Front \"door\"","units":"","valueType":"bool","#
            + #""createdAt":"1969-12-31T23:59:59.999Z","updatedAt":"1970-01-01T00:00:00Z","latest":null,"count":0,"#
            + #""retentionDays":null,"labels":{},"kind":"gauge"}"#
        #expect(written(sensor.write) == expected)
    }

    /// Labels are written in key byte order, so the same labels always read
    /// the same, and come back as they went.
    @Test func sensorLabelsRoundTrip() throws {
        var sensor = external
        sensor.labels = ["source": "mqtt", "Device": "porch \"node\"", "a.b-c_d": "", "room": "çà"]
        let text = written(sensor.write)
        #expect(text.hasSuffix(#""labels":{"Device":"porch \"node\"","a.b-c_d":"","room":"çà","source":"mqtt"},"kind":"gauge"}"#))
        #expect(try Sensor(json: JSONParser.parse(text)) == sensor)
        // An older server sends no labels; a malformed labels object is refused.
        #expect(try Sensor(json: JSONParser.parse(externalJSON.replacingOccurrences(of: #","labels":{}"#, with: ""))).labels == [:])
        let bad = externalJSON.replacingOccurrences(of: #""labels":{}"#, with: #""labels":{"a":1}"#)
        #expect(wireError { () throws(WireFormatError) in try Sensor(json: try! JSONParser.parse(bad)) } != nil)
    }

    @Test func sensorListFromTheContract() throws {
        let text = """
            {"sensors":[{"id":1,"code":"temperature_ext","name":"External Temperature",
              "units":"°C","valueType":"float","createdAt":"2025-01-09T10:00:00Z",
              "updatedAt":"2025-01-09T12:00:00Z",
              "latest":{"timestamp":"2025-01-09T12:00:00Z","value":23.5},"count":1234}]}
            """
        let list = try #require(try JSONParser.parse(text)["sensors"]?.arrayValue)
        #expect(try list.map(Sensor.init(json:)) == [external])
    }

    @Test func sensorListIsWrittenWithCommas() {
        var second = external
        second.id = 2
        second.code = "hum"
        second.name = "Humidity"
        second.units = "%"
        second.valueType = .int
        second.latest = nil
        second.count = 0
        second.retentionDays = 30
        second.kind = .counter
        let text = written { writer in
            writer.beginObject()
            writer.key("sensors")
            writer.beginArray()
            external.write(to: &writer)
            second.write(to: &writer)
            writer.endArray()
            writer.endObject()
        }
        let expectedSecond = #"{"id":2,"code":"hum","name":"Humidity","units":"%","valueType":"int","#
            + #""createdAt":"2025-01-09T10:00:00Z","updatedAt":"2025-01-09T12:00:00Z","latest":null,"count":0,"#
            + #""retentionDays":30,"labels":{},"kind":"counter"}"#
        #expect(text == #"{"sensors":["# + externalJSON + "," + expectedSecond + "]}")
    }

    @Test(arguments: [
        external,
        Sensor(id: 42, code: "x", name: "Ünïcödé \\ \n name", units: "µg/m³", valueType: .int,
               createdAt: Timestamp(milliseconds: -62_135_596_800_000),
               updatedAt: Timestamp(milliseconds: 253_402_300_799_999),
               latest: Reading(timestamp: Timestamp(milliseconds: -14_182_940_001), value: -0.125), count: 7),
        Sensor(id: 0, code: "b", name: "", units: "", valueType: .bool, createdAt: noon, updatedAt: noon,
               latest: nil, count: 0),
        Sensor(id: 5, code: "kept", name: "Kept", units: "W", valueType: .float, createdAt: noon, updatedAt: noon,
               latest: nil, count: 0, retentionDays: Sensor.maximumRetentionDays),
        Sensor(id: 6, code: "meter", name: "Meter", units: "kWh", valueType: .float, createdAt: noon, updatedAt: noon,
               latest: nil, count: 0, kind: .counter),
    ])
    func sensorRoundTrip(sensor: Sensor) throws {
        let json = try JSONParser.parse(written(sensor.write))
        #expect(try Sensor(json: json) == sensor)
    }

    @Test func sensorWithoutLatestMemberHasNoLatest() throws {
        let json = try JSONParser.parse(#"{"id":3,"code":"c","name":"C","units":"","valueType":"float","#
            + #""createdAt":"2025-01-09T10:00:00Z","updatedAt":"2025-01-09T12:00:00Z","count":0}"#)
        #expect(try Sensor(json: json).latest == nil)
        // Servers before retention send no retentionDays: readings are kept forever.
        #expect(try Sensor(json: json).retentionDays == nil)
        // Servers before energy send no kind: every sensor is a gauge.
        #expect(try Sensor(json: json).kind == .gauge)
    }

    @Test(arguments: [
        (#""id":1"#, #""id":"1""#),
        (#""id":1"#, #""id":1.5"#),
        (#""code":"temperature_ext""#, #""code":null"#),
        (#""name":"External Temperature""#, #""name":1"#),
        (#""units":"°C""#, #""units":null"#),
        (#""valueType":"float""#, #""valueType":"double""#),
        (#""valueType":"float""#, #""valueType":"Float""#),
        (#""createdAt":"2025-01-09T10:00:00Z""#, #""createdAt":1736416800"#),
        (#""updatedAt":"2025-01-09T12:00:00Z""#, #""updatedAt":"2025-02-30T12:00:00Z""#),
        (#""count":1234"#, #""count":12.5"#),
        (#""count":1234"#, #""counts":1234"#),
        (#""retentionDays":null"#, #""retentionDays":"30""#),
        (#""retentionDays":null"#, #""retentionDays":1.5"#),
        (#""kind":"gauge""#, #""kind":"meter""#),
        (#""kind":"gauge""#, #""kind":"Gauge""#),
        (#""kind":"gauge""#, #""kind":1"#),
    ] as [(String, String)])
    func malformedSensors(original: String, replacement: String) throws {
        let text = externalJSON.replacingFirst(original, with: replacement)
        #expect(text != externalJSON)
        let json = try JSONParser.parse(text)
        #expect(wireError { () throws(WireFormatError) in try Sensor(json: json) } == WireFormatError("malformed sensor"))
    }

    @Test func sensorWithMalformedLatest() throws {
        let text = externalJSON.replacingFirst(#""value":23.5"#, with: #""value":"23.5""#)
        let json = try JSONParser.parse(text)
        #expect(wireError { () throws(WireFormatError) in try Sensor(json: json) }
                == WireFormatError("reading without a value"))
    }

    // MARK: Reading

    @Test(arguments: [
        (Reading(timestamp: noon, value: 23.5), #"{"timestamp":"2025-01-09T12:00:00Z","value":23.5}"#),
        (Reading(timestamp: noon.adding(milliseconds: 123), value: 22),
         #"{"timestamp":"2025-01-09T12:00:00.123Z","value":22}"#),
        (Reading(timestamp: Timestamp(milliseconds: -1), value: -0.5),
         #"{"timestamp":"1969-12-31T23:59:59.999Z","value":-0.5}"#),
        (Reading(timestamp: noon, value: 1e-7), #"{"timestamp":"2025-01-09T12:00:00Z","value":1e-07}"#),
    ] as [(Reading, String)])
    func readingKeyOrder(reading: Reading, expected: String) throws {
        #expect(written(reading.write) == expected)
        #expect(try Reading(json: try JSONParser.parse(expected)) == reading)
    }

    @Test func readingListIsWrittenWithCommas() {
        let text = written { writer in
            writer.beginObject()
            writer.key("data")
            writer.beginArray()
            Reading(timestamp: noon, value: 23.5).write(to: &writer)
            Reading(timestamp: ten, value: 1).write(to: &writer)
            writer.endArray()
            writer.endObject()
        }
        #expect(text == #"{"data":[{"timestamp":"2025-01-09T12:00:00Z","value":23.5},"#
                + #"{"timestamp":"2025-01-09T10:00:00Z","value":1}]}"#)
    }

    @Test func readingsRoundTrip() throws {
        let values: [Double] = [0, 23.5, -0.1, 1e-7, 1e20, 123_456.789, .leastNonzeroMagnitude, -1.7976931348623157e308, 1.0 / 3]
        let times: [Int64] = [-62_135_596_800_000, -1, 0, 1_736_424_000_001, 253_402_300_799_999]
        for value in values {
            for time in times {
                let reading = Reading(timestamp: Timestamp(milliseconds: time), value: value)
                #expect(try Reading(json: try JSONParser.parse(written(reading.write))) == reading)
            }
        }
    }

    @Test(arguments: [
        (#"{"value":1}"#, "reading without a valid timestamp"),
        (#"{"timestamp":1736424000,"value":1}"#, "reading without a valid timestamp"),
        (#"{"timestamp":"2025-01-09","value":1}"#, "reading without a valid timestamp"),
        (#"{"timestamp":"2025-01-09T12:00:00Z"}"#, "reading without a value"),
        (#"{"timestamp":"2025-01-09T12:00:00Z","value":"23.5"}"#, "reading without a value"),
        (#"{"timestamp":"2025-01-09T12:00:00Z","value":null}"#, "reading without a value"),
        ("[]", "reading without a valid timestamp"),
    ] as [(String, String)])
    func malformedReadings(text: String, message: String) throws {
        let json = try JSONParser.parse(text)
        #expect(wireError { () throws(WireFormatError) in try Reading(json: json) } == WireFormatError(message))
    }

    // MARK: Bucket

    @Test func bucketKeyOrder() throws {
        let bucket = Bucket(timestamp: noon, mean: 22.25, min: 20, max: 24.5, count: 3)
        let expected = #"{"timestamp":"2025-01-09T12:00:00Z","value":22.25,"min":20,"max":24.5,"count":3}"#
        #expect(written(bucket.write) == expected)
        #expect(try Bucket(json: try JSONParser.parse(expected)) == bucket)
    }

    @Test(arguments: [
        Bucket(timestamp: noon, mean: 22.25, min: 20, max: 24.5, count: 3),
        Bucket(timestamp: Timestamp(milliseconds: -62_135_596_800_000), mean: -1.0 / 3, min: -1e300, max: .leastNonzeroMagnitude,
               count: 9_007_199_254_740_991),
        Bucket(timestamp: Timestamp(milliseconds: 253_402_300_799_999), mean: 0, min: 0, max: 0, count: 1),
    ])
    func bucketRoundTrip(bucket: Bucket) throws {
        #expect(try Bucket(json: try JSONParser.parse(written(bucket.write))) == bucket)
    }

    @Test(arguments: [
        #"{"value":1,"min":1,"max":1,"count":1}"#,
        #"{"timestamp":"2025-01-09T12:00:00Z","min":1,"max":1,"count":1}"#,
        #"{"timestamp":"2025-01-09T12:00:00Z","value":1,"max":1,"count":1}"#,
        #"{"timestamp":"2025-01-09T12:00:00Z","value":1,"min":1,"count":1}"#,
        #"{"timestamp":"2025-01-09T12:00:00Z","value":1,"min":1,"max":1}"#,
        #"{"timestamp":"2025-01-09T12:00:00Z","value":1,"min":1,"max":1,"count":1.5}"#,
        #"{"timestamp":"2025-01-09T12:00:00Z","value":1,"min":1,"max":1,"count":"1"}"#,
        #"{"timestamp":"today","value":1,"min":1,"max":1,"count":1}"#,
        #"{"timestamp":"2025-01-09T12:00:00Z","mean":1,"min":1,"max":1,"count":1}"#,
    ])
    func malformedBuckets(text: String) throws {
        let json = try JSONParser.parse(text)
        #expect(wireError { () throws(WireFormatError) in try Bucket(json: json) } == WireFormatError("malformed bucket"))
    }

    @Test func wireFormatErrorDescription() {
        #expect(WireFormatError("malformed bucket").description == "malformed bucket")
    }
}

extension String {
    fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
        replacing(target, with: replacement, maxReplacements: 1)
    }
}
