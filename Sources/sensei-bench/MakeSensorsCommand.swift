import ArgumentParser
import SenseiModels

extension SenseiBenchCommand {
    /// Brings the server up to a number of sensors, each with a name, units and
    /// a few recent readings, so that `GET /sensors` lists realistic rows.
    struct MakeSensors: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "make-sensors",
            abstract: "Create sensors until the server has --count of them (needs an admin token).")

        @OptionGroup var server: ServerOptions

        @Option(help: "How many sensors the server should have in all afterwards.")
        var count = 100

        @Option(help: "Readings posted to each new sensor.")
        var readings = 10

        func validate() throws {
            guard (1...10_000).contains(count) else { throw ValidationError("--count must be from 1 to 10000") }
            guard (0...1_000).contains(readings) else { throw ValidationError("--readings must be from 0 to 1000") }
        }

        func run() throws {
            let client = try server.client()
            var existing = try sensorCount(client)
            var index = 0
            let now = Timestamp.now().milliseconds / 1000
            while existing < count {
                index += 1
                let number = String(index)
                let code = "room_" + String(repeating: "0", count: max(0, 3 - number.count)) + number
                // Labelled as the MQTT path labels what it creates: the list carries them.
                let node = "node-\(index % 100)"
                let metadata = #"{"code":"\#(code)","name":"Room \#(index)","units":"°C","valueType":"float","labels":"#
                    + #"{"source":"mqtt","device":"\#(node)","field":"temperature","topic":"home/\#(node)/\#(code)"}}"#
                let created = try client.request("POST", "/sensors", json: Array(metadata.utf8))
                if created.status == 409 { continue }
                guard created.status == 201 else {
                    throw BenchError.server("POST /sensors answered \(created.status): \(created.text)")
                }
                existing += 1
                guard readings > 0 else { continue }
                let items = (0..<readings).map { step in
                    #"{"timestamp":\#(now - Int64(30 * (readings - step))),"value":\#(18 + (index + step) % 7).5}"#
                }
                let body = #"{"data":[\#(items.joined(separator: ","))]}"#
                let posted = try client.request("POST", "/sensors/\(code)/data", json: Array(body.utf8))
                guard posted.status == 201 else {
                    throw BenchError.server("POST /sensors/\(code)/data answered \(posted.status): \(posted.text)")
                }
            }
            print("the server has \(try sensorCount(client)) sensors")
        }

        private func sensorCount(_ client: LoopbackClient) throws -> Int {
            let reply = try client.request("GET", "/sensors")
            guard reply.status == 200 else { throw BenchError.server("GET /sensors answered \(reply.status): \(reply.text)") }
            guard let sensors = try JSONParser.parse(reply.body)["sensors"]?.arrayValue else {
                throw BenchError.protocolError("GET /sensors has no sensors array")
            }
            return sensors.count
        }
    }
}
