import Foundation
import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

/// The device examples under examples/ post what their fixtures hold:
/// examples/fixtures/<example>.<sensor code>.json is the exact body one of
/// them sends to `POST /sensors/<sensor code>/data` (examples/check.sh checks
/// each example's code against its fixture). Each fixture is posted here to a
/// fresh server as the example posts it, and must be stored as it says.
@Suite("Example device bodies")
struct ExampleBodiesTests {
    static let fixturesDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("examples/fixtures").path

    /// The fixture files' names, sorted.
    static let fixtureNames: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: fixturesDirectory)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted()
    }()

    @Test func everyExampleHasAFixture() {
        let examples = Set(Self.fixtureNames.map { String($0.prefix { $0 != "." }) })
        #expect(examples == ["esp32-dht22", "micropython", "raspberry-pi-py", "raspberry-pi-sh"])
    }

    @Test(arguments: fixtureNames)
    func fixtureIsAcceptedAndStored(name: String) async throws {
        // "<example>.<code>.json": a code never holds a dot.
        let code = String(name.dropLast(".json".count).split(separator: ".", maxSplits: 1)[1])
        #expect(SensorCode.isValid(code))
        var body = try String(contentsOfFile: Self.fixturesDirectory + "/" + name, encoding: .utf8)
        if body.hasSuffix("\n") { body.removeLast() }  // as examples/check.sh reads them
        let sent = try JSONParser.parse(Array(body.utf8))
        // A batch, or one reading.
        let items = sent["data"]?.arrayValue ?? [sent]

        try await withTestServer { server in
            let before = Timestamp.now()
            let response = try await server.writer.post("/sensors/\(code)/data", json: body, contentType: "application/json")
            #expect(response.status == 201, "\(name): \(response.text)")
            #expect(response.text == #"{"accepted":\#(items.count)}"#)

            let stored = try await server.reader.get("/sensors/\(code)/data?order=asc").json["data"]?.arrayValue ?? []
            try #require(stored.count == items.count)
            for (item, reading) in zip(items, stored) {
                #expect(reading["value"] == item["value"], "\(name)")
                let storedTime = try #require(reading["timestamp"]?.stringValue.flatMap(Timestamp.init(rfc3339:)))
                if let seconds = item["timestamp"]?.doubleValue {
                    #expect(storedTime == Timestamp(epochSeconds: seconds), "\(name)")
                } else {
                    // No timestamp: the server's receive time.
                    #expect(storedTime >= before && storedTime <= Timestamp.now(), "\(name)")
                }
            }
            let sensor = try await server.reader.get("/sensors/\(code)").json
            #expect(sensor["valueType"] == .string("float"))
            #expect(sensor["count"] == .number(Double(items.count)))
        }
    }
}
