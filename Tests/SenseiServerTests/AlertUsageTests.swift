import Foundation
import Synchronization
import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

/// `usage_above` rules against the real server and a real HTTP receiver on
/// loopback. Expected usage is worked out here from the readings posted (a
/// constant power's integral is power × time), not by the server's code.
@Suite("Alerts on usage")
struct AlertUsageTests {
    /// A clock the test moves itself: the alerts' "now", so the end of an
    /// interval comes when the test says.
    final class TestClock: Sendable {
        private let milliseconds: Atomic<Int64>
        init(_ time: Timestamp) { milliseconds = Atomic(time.milliseconds) }
        func now() -> Timestamp { Timestamp(milliseconds: milliseconds.load(ordering: .acquiring)) }
        func set(_ time: Timestamp) { milliseconds.store(time.milliseconds, ordering: .releasing) }
    }

    static func withUsageServer<T>(clock: TestClock? = nil, dataDirectory: String? = nil,
                                   _ body: (TestServer) async throws -> T) async throws -> T {
        try await withTestServer(dataDirectory: dataDirectory, configure: { configuration in
            AlertTests.fast(&configuration)
            configuration.alerts.usageCheckInterval = 0
            if let clock { configuration.alerts.clock = { clock.now() } }
        }, body)
    }

    static func time(_ text: String) throws -> Timestamp { try #require(Timestamp(rfc3339: text)) }

    /// One batch of readings of a constant `watts`, a minute apart from `start`.
    static func postMinutes(_ server: TestServer, _ code: String, from start: Timestamp, minutes: ClosedRange<Int>,
                            watts: Double) async throws {
        let items = minutes.map { #"{"timestamp":"\#(start.adding(milliseconds: Int64($0) * 60_000).rfc3339)","value":\#(watts)}"# }
        let response = try await server.writer.post("/sensors/\(code)/data", json: #"{"data":[\#(items.joined(separator: ","))]}"#)
        #expect(response.status == 201, "\(response.text)")
    }

    static func createHeatPump(_ server: TestServer) async throws {
        let created = try await server.admin.post("/sensors", json: #"{"code":"heat_pump","name":"Heat pump","units":"W"}"#)
        #expect(created.status == 201, "\(created.text)")
    }

    static func number(_ value: JSONValue?) -> Double { value?.doubleValue ?? .nan }

    static func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-9 * max(1, abs(b)) }

    /// On the server's own clock: a power meter's use today passes the
    /// threshold, one notification carries it, more use sends nothing more.
    @Test func aGaugesUseTodayFiresOnceWithTheUsage() async throws {
        let receiver = try WebhookReceiver()
        try await Self.withUsageServer { server in
            try await Self.createHeatPump(server)
            let id = try await AlertTests.rule(server, #"""
                {"name":"Heat pump over budget","sensor":"heat_pump","condition":"usage_above","threshold":100,
                 "interval":"day","notify":["\#(receiver.url())"]}
                """#)
            // Ten minutes of 3 kW up to now: 500 Wh, or less when today began
            // in those ten minutes (the readings before midnight count for yesterday).
            let now = Timestamp.now().milliseconds / 1000 * 1000
            let first = now - 600_000
            let midnight = now - now % 86_400_000
            let expected = 3000 * Double(now - max(first, midnight)) / 3_600_000
            try await Self.postMinutes(server, "heat_pump", from: Timestamp(milliseconds: first), minutes: 0...10, watts: 3000)
            try await receiver.wait { $0.count == 1 }
            #expect(try await AlertTests.state(server, id) == "firing")
            // More use today: still firing, nothing more to hear.
            try await Self.postMinutes(server, "heat_pump", from: Timestamp(milliseconds: now - 30_000), minutes: 0...0, watts: 5000)
            try await AlertTests.post(server, "heat_pump", 4000)
            try await AlertTests.drained(server)
            let got = receiver.accepted
            #expect(AlertTests.states(got) == ["firing"])
            let body = try #require(got.first?.json)
            #expect(body["condition"] == .string("usage_above"))
            #expect(body["interval"] == .string("day") && body["tz"] == .string("UTC") && body["units"] == .string("Wh"))
            #expect(body["sensor"]?["units"] == .string("W"))
            #expect(body["threshold"] == .number(100))
            #expect(Self.close(Self.number(body["value"]), expected), "\(body)")
            #expect(body["message"]?.stringValue == "Heat pump over budget: Heat pump used \(formatNumber(Self.number(body["value"]))) Wh today, above 100 Wh")
            let served = try await server.reader.get("/alerts/\(id)").json
            #expect(served["interval"] == .string("day") && served["tz"] == .string("UTC"))
            #expect(Self.close(Self.number(served["value"]), expected))
        }
    }

    /// On a clock the test moves: 9 March 2025 in New York is a 23-hour day
    /// (the clocks go forward), so it ends at 04:00 UTC, not 05:00. The rule
    /// fires in it, resolves when the next day starts with no reading to
    /// wake it, and fires again in the new day.
    @Test func resolvesWhenTheNextIntervalStartsAndFiresAgainInIt() async throws {
        let receiver = try WebhookReceiver()
        let clock = TestClock(try Self.time("2025-03-10T03:30:00Z"))  // 23:30 in New York
        try await Self.withUsageServer(clock: clock) { server in
            try await Self.createHeatPump(server)
            let id = try await AlertTests.rule(server, #"""
                {"name":"Heat pump over 500 Wh","sensor":"heat_pump","condition":"usage_above","threshold":500,
                 "interval":"day","tz":"America/New_York","notify":["\#(receiver.url())"]}
                """#)
            // 20 minutes of 2 kW: 666.7 Wh.
            try await Self.postMinutes(server, "heat_pump", from: try Self.time("2025-03-10T03:00:00Z"), minutes: 0...20, watts: 2000)
            try await receiver.wait { $0.count == 1 }
            // Two more minutes before midnight: still firing, no word.
            try await Self.postMinutes(server, "heat_pump", from: try Self.time("2025-03-10T03:21:00Z"), minutes: 0...1, watts: 2000)
            try await AlertTests.drained(server)
            #expect(receiver.accepted.count == 1)
            #expect(try await AlertTests.state(server, id) == "firing")

            // Midnight in New York, and no reading since: the timer resolves it.
            let midnight = try Self.time("2025-03-10T04:00:00Z")
            clock.set(midnight.adding(milliseconds: 100))
            try await receiver.wait { $0.count == 2 }
            #expect(try await AlertTests.state(server, id) == "ok")

            // The new day's own use fires it again.
            clock.set(try Self.time("2025-03-10T04:30:00Z"))
            try await Self.postMinutes(server, "heat_pump", from: midnight, minutes: 0...20, watts: 2000)
            try await receiver.wait { $0.count == 3 }
            try await AlertTests.drained(server)
            let got = receiver.accepted
            #expect(AlertTests.states(got) == ["firing", "resolved", "firing"])
            #expect(Self.close(Self.number(got[0].json?["value"]), 2000.0 * 20 / 60))
            // The day it resolved with: 22 minutes of 2 kW.
            #expect(Self.close(Self.number(got[1].json?["value"]), 2000.0 * 22 / 60))
            #expect(got[1].json?["message"]?.stringValue?.hasPrefix("Heat pump over 500 Wh resolved: a new day began; Heat pump used 733.33") == true)
            #expect(got[1].json?["at"] == .string("2025-03-10T04:00:00.100Z"))
            #expect(got[1].json?["tz"] == .string("America/New_York"))
            #expect(Self.close(Self.number(got[2].json?["value"]), 2000.0 * 20 / 60))
            #expect(got[2].json?["at"] == .string("2025-03-10T04:30:00Z"))
        }
    }

    /// A usage rule ahead of its threshold before it is created fires at
    /// once; one below it stays `ok` however many readings come.
    @Test func aRuleCreatedPastItsThresholdFiresAndOneBelowStaysQuiet() async throws {
        let receiver = try WebhookReceiver()
        let clock = TestClock(try Self.time("2025-06-02T10:30:00Z"))
        try await Self.withUsageServer(clock: clock) { server in
            try await Self.createHeatPump(server)
            try await Self.postMinutes(server, "heat_pump", from: try Self.time("2025-06-02T10:00:00Z"), minutes: 0...15, watts: 1000)
            let below = try await AlertTests.rule(server, #"""
                {"name":"Under","sensor":"heat_pump","condition":"usage_above","threshold":300,"interval":"hour",
                 "notify":["\#(receiver.url("/below"))"]}
                """#)
            let above = try await AlertTests.rule(server, #"""
                {"name":"Over","sensor":"heat_pump","condition":"usage_above","threshold":200,"interval":"hour",
                 "notify":["\#(receiver.url("/above"))"]}
                """#)
            try await receiver.wait { $0.count == 1 }
            // 250 Wh so far this hour: more readings of nothing keep the first rule below 300.
            let evaluator = server.application.alerts.evaluator
            let checked = evaluator.usageChecks.load(ordering: .acquiring)
            try await Self.postMinutes(server, "heat_pump", from: try Self.time("2025-06-02T10:16:00Z"), minutes: 0...5, watts: 0)
            try await waitUntil("the new readings judged") { evaluator.usageChecks.load(ordering: .acquiring) > checked }
            try await AlertTests.drained(server)
            #expect(receiver.accepted.map(\.path) == ["/above"])
            #expect(Self.close(Self.number(receiver.accepted[0].json?["value"]), 250))
            let (belowState, aboveState) = (try await AlertTests.state(server, below), try await AlertTests.state(server, above))
            #expect(belowState == "ok" && aboveState == "firing")
        }
    }

    /// A rule firing before a restart does not fire again after it in the
    /// same interval, and a restart after the interval ended resolves it.
    @Test func aRestartNeitherRefiresNorForgetsTheIntervalsEnd() async throws {
        let receiver = try WebhookReceiver()
        let clock = TestClock(try Self.time("2025-06-02T10:30:00Z"))
        try await withTemporaryDirectory { directory in
            let id: Int64 = try await Self.withUsageServer(clock: clock, dataDirectory: directory) { server in
                try await Self.createHeatPump(server)
                let id = try await AlertTests.rule(server, #"""
                    {"name":"Hourly","sensor":"heat_pump","condition":"usage_above","threshold":100,"interval":"hour",
                     "notify":["\#(receiver.url())"]}
                    """#)
                try await Self.postMinutes(server, "heat_pump", from: try Self.time("2025-06-02T10:00:00Z"), minutes: 0...10, watts: 1200)
                try await receiver.wait { $0.count == 1 }
                try await AlertTests.drained(server)
                return id
            }
            clock.set(try Self.time("2025-06-02T10:45:00Z"))
            try await Self.withUsageServer(clock: clock, dataDirectory: directory) { server in
                // Same hour, more use: still firing from before, and the restart sent nothing.
                try await Self.postMinutes(server, "heat_pump", from: try Self.time("2025-06-02T10:11:00Z"), minutes: 0...5, watts: 1200)
                try await AlertTests.drained(server)
                #expect(try await AlertTests.state(server, id) == "firing")
                #expect(receiver.accepted.count == 1)
            }
            // Down over the hour's end: the next start resolves it, with the hour's 16 minutes of 1.2 kW.
            clock.set(try Self.time("2025-06-02T11:20:00Z"))
            try await Self.withUsageServer(clock: clock, dataDirectory: directory) { server in
                try await receiver.wait { $0.count == 2 }
                try await AlertTests.drained(server)
                #expect(AlertTests.states(receiver.accepted) == ["firing", "resolved"])
                #expect(Self.close(Self.number(receiver.accepted[1].json?["value"]), 1200.0 * 16 / 60))
                #expect(try await AlertTests.state(server, id) == "ok")
            }
        }
    }
}
