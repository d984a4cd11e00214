import Foundation
import Testing
import SenseiModels
import SenseiTestSupport
@testable import SenseiServer

/// `event: alert` on `GET /stream`: a rule's creation, changes, deletion and
/// every move of its state reach a listener as they are committed, so a
/// dashboard shows a firing rule when it fires.
@Suite("Stream alert events")
struct StreamAlertTests {
    /// 192.0.2.1 is TEST-NET-1 and `loopbackOnly` refuses it without a
    /// connection: rules need a target, and nothing may leave the machine.
    static let notify = #""notify":["http://192.0.2.1:9/hook"]"#

    static func configure(_ configuration: inout SenseiApplication.Configuration) {
        configuration.alerts.loopbackOnly = true
        configuration.alerts.tickInterval = 0.1
    }

    /// The next event, which must be an alert; its `data`.
    static func nextAlert(_ stream: EventStreamReader, sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
        let event = try #require(try await stream.nextEvent(), "no event came", sourceLocation: sourceLocation)
        #expect(event.name == "alert", "\(event.data)", sourceLocation: sourceLocation)
        return event.data
    }

    static func nextReading(_ stream: EventStreamReader, sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
        let event = try #require(try await stream.nextEvent(), "no event came", sourceLocation: sourceLocation)
        #expect(event.name == "reading", "\(event.data)", sourceLocation: sourceLocation)
        return event.data
    }

    @Test func createdFiringResolvedChangedDeleted() async throws {
        try await withTestServer(configure: Self.configure) { server in
            #expect(try await server.writer.post("/sensors/door/data", json: #"{"value":0}"#).status == 201)
            #expect(try await server.writer.post("/sensors/porch/data", json: #"{"value":0}"#).status == 201)
            let every = try await EventStreamReader.open(client: server.reader, path: "/stream")
            let door = try await EventStreamReader.open(client: server.reader, path: "/stream?sensor=door&limit=2")
            let porch = try await EventStreamReader.open(client: server.reader, path: "/stream?sensor=porch")

            let created = try await server.admin.post("/alerts", json: #"""
                {"name":"Door open","sensor":"door","condition":"above","threshold":0.5,\#(Self.notify)}
                """#)
            #expect(created.status == 201)
            let id = try #require(try created.json["id"]?.intValue)
            let served = try await server.reader.get("/alerts/\(id)").json
            for stream in [every, door] {
                #expect(try await Self.nextAlert(stream) == .object(["change": .string("created"), "alert": served]))
            }

            // Over the threshold: the reading, then the rule firing, as GET serves it.
            let posted = ContinuousClock.now
            #expect(try await server.writer.post("/sensors/door/data", json: #"{"value":1}"#).status == 201)
            #expect(try await Self.nextReading(every)["value"] == .number(1))
            let firing = try await Self.nextAlert(every)
            let delay = ContinuousClock.now - posted
            print("stream: a rule's firing arrived \(delay) after the POST of the reading began")
            // A hang's bound: the figure is printed; timed across awaits, it
            // also holds every wait for a thread of the pool.
            #expect(delay < .seconds(20))
            #expect(firing["change"] == .string("state"))
            #expect(firing["alert"]?["state"] == .string("firing"))
            #expect(firing["alert"]?["value"] == .number(1))
            #expect(firing["alert"] == (try await server.reader.get("/alerts/\(id)").json))
            #expect(try await Self.nextReading(door)["value"] == .number(1))
            #expect(try await Self.nextAlert(door)["alert"]?["state"] == .string("firing"))

            // Back under: ok again.
            #expect(try await server.writer.post("/sensors/door/data", json: #"{"value":0}"#).status == 201)
            #expect(try await Self.nextReading(every)["value"] == .number(0))
            let resolved = try await Self.nextAlert(every)
            #expect(resolved["change"] == .string("state"))
            #expect(resolved["alert"]?["state"] == .string("ok"))
            #expect(resolved["alert"]?["value"] == .number(0))
            #expect(resolved["alert"] == (try await server.reader.get("/alerts/\(id)").json))
            // `limit=2` counts readings only: the alert events between did not end it early.
            #expect(try await Self.nextReading(door)["value"] == .number(0))
            #expect(door.waitForEnd())

            let patched = try await server.admin.patch("/alerts/\(id)", json: #"{"name":"Front door open"}"#)
            #expect(patched.status == 200)
            let changed = try await Self.nextAlert(every)
            #expect(changed == .object(["change": .string("changed"), "alert": try patched.json]))
            #expect(changed["alert"]?["name"] == .string("Front door open"))

            #expect(try await server.admin.delete("/alerts/\(id)").status == 204)
            #expect(try await Self.nextAlert(every) == .object(["change": .string("deleted"),
                                                          "alert": .object(["id": .number(Double(id))])]))

            // The porch listener heard none of the door's rule: its first event is its own reading.
            #expect(try await server.writer.post("/sensors/porch/data", json: #"{"value":5}"#).status == 201)
            let first = try #require(try await porch.nextEvent())
            #expect(first.name == "reading" && first.data["sensor"] == .string("porch"))
            #expect(try await Self.nextReading(every)["sensor"] == .string("porch"))
        }
    }

    /// Moves made by the timer (a `for` deadline reached, a silence) go out
    /// too, and a rule moved to another sensor is told to both sensors' listeners.
    @Test func timerMovesAndSensorChanges() async throws {
        try await withTestServer(configure: Self.configure) { server in
            #expect(try await server.writer.post("/sensors/tank/data", json: #"{"value":10}"#).status == 201)
            #expect(try await server.writer.post("/sensors/pump/data", json: #"{"value":0}"#).status == 201)
            let tank = try await EventStreamReader.open(client: server.reader, path: "/stream?sensor=tank")
            let pump = try await EventStreamReader.open(client: server.reader, path: "/stream?sensor=pump")
            let created = try await server.admin.post("/alerts", json: #"""
                {"name":"Tank low","sensor":"tank","condition":"below","threshold":5,"for":1,\#(Self.notify)}
                """#)
            #expect(created.status == 201)
            let id = try #require(try created.json["id"]?.intValue)
            #expect(try await Self.nextAlert(tank)["change"] == .string("created"))

            #expect(try await server.writer.post("/sensors/tank/data", json: #"{"value":2}"#).status == 201)
            #expect(try await Self.nextReading(tank)["value"] == .number(2))
            #expect(try await Self.nextAlert(tank)["alert"]?["state"] == .string("pending"))
            // No reading: the timer fires it once `for` has run out.
            let fired = try await Self.nextAlert(tank)
            #expect(fired["change"] == .string("state") && fired["alert"]?["state"] == .string("firing"))

            // Moved to the pump (starts again, ok): both sensors' listeners hear it.
            let moved = try await server.admin.patch("/alerts/\(id)", json: #"{"sensor":"pump"}"#)
            #expect(moved.status == 200)
            for stream in [tank, pump] {
                let event = try await Self.nextAlert(stream)
                #expect(event["change"] == .string("changed"))
                #expect(event["alert"]?["sensor"] == .string("pump") && event["alert"]?["state"] == .string("ok"))
            }
            // A silent rule fires from the timer alone, with no value.
            let silent = try await server.admin.post("/alerts", json: #"""
                {"name":"Pump quiet","sensor":"pump","condition":"silent","for":1,\#(Self.notify)}
                """#)
            #expect(silent.status == 201)
            #expect(try await Self.nextAlert(pump)["change"] == .string("created"))
            let quiet = try await Self.nextAlert(pump)
            #expect(quiet["alert"]?["name"] == .string("Pump quiet"))
            #expect(quiet["alert"]?["state"] == .string("firing") && quiet["alert"]?["value"] == .null)
            #expect(try tank.takeAll().isEmpty)
        }
    }

    /// Deleting a sensor deletes its rules: each is told as deleted.
    @Test func aDeletedSensorsRulesAreDeleted() async throws {
        try await withTestServer(configure: Self.configure) { server in
            #expect(try await server.writer.post("/sensors/shed/data", json: #"{"value":1}"#).status == 201)
            let stream = try await EventStreamReader.open(client: server.reader, path: "/stream")
            var ids: [Int] = []
            for name in ["Shed cold", "Shed warm"] {
                let created = try await server.admin.post("/alerts", json: #"""
                    {"name":"\#(name)","sensor":"shed","condition":"above","threshold":30,\#(Self.notify)}
                    """#)
                ids.append(try #require(try created.json["id"]?.intValue))
                #expect(try await Self.nextAlert(stream)["change"] == .string("created"))
            }
            #expect(try await server.admin.delete("/sensors/shed").status == 204)
            for id in ids {
                #expect(try await Self.nextAlert(stream) == .object(["change": .string("deleted"),
                                                               "alert": .object(["id": .number(Double(id))])]))
            }
            #expect(try await server.reader.get("/alerts").json == .object(["alerts": .array([])]))
            #expect(server.application.alerts.evaluator.countsByState().values.reduce(0, +) == 0)
        }
    }
}
