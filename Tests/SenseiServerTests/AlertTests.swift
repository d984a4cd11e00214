import Foundation
import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

/// Alert rules against the real server and real HTTP receivers on loopback:
/// each case ends with exactly the notifications expected, checked once the
/// outbox is empty (nothing more is on its way).
@Suite("Alerts")
struct AlertTests {
    /// Timings short enough for tests that run in seconds.
    static func fast(_ configuration: inout SenseiApplication.Configuration) {
        configuration.alerts.tickInterval = 0.05
        configuration.alerts.retryBackoff = 0.1
        configuration.alerts.maximumBackoff = 0.4
        configuration.alerts.deliveryTimeout = 1
    }

    static func withAlertServer<T>(dataDirectory: String? = nil, _ body: (TestServer) async throws -> T) async throws -> T {
        try await withTestServer(dataDirectory: dataDirectory, configure: fast, body)
    }

    /// Creates a rule; returns its id.
    static func rule(_ server: TestServer, _ json: String) async throws -> Int64 {
        let response = try await server.admin.post("/alerts", json: json)
        #expect(response.status == 201, "\(response.text)")
        return Int64(try #require(try response.json["id"]?.intValue))
    }

    static func post(_ server: TestServer, _ code: String, _ value: Double, at timestamp: String? = nil) async throws {
        let json = timestamp.map { #"{"value":\#(value),"timestamp":"\#($0)"}"# } ?? #"{"value":\#(value)}"#
        let response = try await server.writer.post("/sensors/\(code)/data", json: json)
        #expect(response.status == 201, "\(response.text)")
    }

    static func state(_ server: TestServer, _ id: Int64) async throws -> String? {
        try await server.reader.get("/alerts/\(id)").json["state"]?.stringValue
    }

    /// Waits until every notification decided so far is in the outbox (no
    /// state change waits for its commit) and the outbox is empty: each one
    /// delivered or given up.
    static func drained(_ server: TestServer) async throws {
        try await waitUntil("outbox empty") {
            try server.application.alerts.evaluator.savesInFlight == 0 && server.storage.outboxCounts().pending == 0
        }
    }

    static func states(_ received: [WebhookReceiver.Received]) -> [String] {
        received.compactMap { $0.json?["state"]?.stringValue }
    }

    // MARK: conditions

    @Test func aboveFiresOnceAndResolvesOnceWithTheContractsBody() async throws {
        let receiver = try WebhookReceiver()
        try await Self.withAlertServer { server in
            #expect(try await server.admin.post("/sensors", json: #"{"code":"freezer_temp","name":"Freezer","units":"°C"}"#).status == 201)
            let id = try await Self.rule(server, #"""
                {"name":"Freezer too warm","sensor":"freezer_temp","condition":"above","threshold":-10,
                 "notify":["\#(receiver.url())"]}
                """#)
            try await Self.post(server, "freezer_temp", -12)
            try await Self.post(server, "freezer_temp", -8.5)
            try await receiver.wait { $0.count == 1 }
            #expect(try await Self.state(server, id) == "firing")
            try await Self.post(server, "freezer_temp", -7)  // still firing: nothing new
            try await Self.post(server, "freezer_temp", -11)
            try await receiver.wait { $0.count == 2 }
            try await Self.drained(server)
            let got = receiver.accepted
            #expect(Self.states(got) == ["firing", "resolved"])
            let firing = try #require(got.first?.json)
            #expect(got[0].method == "POST" && got[0].path == "/hook")
            #expect(got[0].headers["content-type"] == "application/json")
            #expect(firing["alert"]?["id"] == .number(Double(id)))
            #expect(firing["alert"]?["name"] == .string("Freezer too warm"))
            #expect(firing["sensor"]?["code"] == .string("freezer_temp"))
            #expect(firing["sensor"]?["name"] == .string("Freezer"))
            #expect(firing["sensor"]?["units"] == .string("°C"))
            #expect(firing["sensor"]?["kind"] == .string("gauge"))
            #expect(firing["condition"] == .string("above"))
            #expect(firing["threshold"] == .number(-10))
            #expect(firing["value"] == .number(-8.5))
            #expect(firing["message"] == .string("Freezer too warm: Freezer is -8.5 °C, above -10 °C"))
            #expect(Timestamp(rfc3339: firing["at"]?.stringValue ?? "") != nil)
            #expect(got[1].json?["value"] == .number(-11))
            #expect(got[1].json?["message"] == .string("Freezer too warm resolved: Freezer is -11 °C"))
            let served = try await server.reader.get("/alerts/\(id)").json
            #expect(served["state"] == .string("ok") && served["value"] == .number(-11))
        }
    }

    @Test func belowWithHysteresisDoesNotFlap() async throws {
        let receiver = try WebhookReceiver()
        try await Self.withAlertServer { server in
            try await Self.post(server, "greenhouse", 15)
            let id = try await Self.rule(server, #"""
                {"name":"Greenhouse cold","sensor":"greenhouse","condition":"below","threshold":10,"hysteresis":2,
                 "notify":["\#(receiver.url())"]}
                """#)
            try await Self.post(server, "greenhouse", 9)
            try await receiver.wait { $0.count == 1 }
            // Back over the line, but not by 2: still firing, however often it crosses.
            for value in [10.5, 9.5, 11.9, 9.9, 11] { try await Self.post(server, "greenhouse", value) }
            #expect(try await Self.state(server, id) == "firing")
            try await Self.post(server, "greenhouse", 12)
            try await receiver.wait { $0.count == 2 }
            try await Self.drained(server)
            #expect(Self.states(receiver.accepted) == ["firing", "resolved"])
            #expect(receiver.accepted.map { $0.json?["value"] } == [.number(9), .number(12)])
        }
    }

    @Test func forHoldsARulePendingUntilTheConditionHasLasted() async throws {
        let receiver = try WebhookReceiver()
        try await Self.withAlertServer { server in
            try await Self.post(server, "boiler", 50)
            let long = try await Self.rule(server, #"""
                {"name":"Boiler hot (long)","sensor":"boiler","condition":"above","threshold":80,"for":3600,
                 "notify":["\#(receiver.url("/long"))"]}
                """#)
            let short = try await Self.rule(server, #"""
                {"name":"Boiler hot","sensor":"boiler","condition":"above","threshold":80,"for":1,
                 "notify":["\#(receiver.url("/short"))"]}
                """#)
            try await Self.post(server, "boiler", 85)
            #expect(try await Self.state(server, long) == "pending")
            // The short rule fires once its second has passed, with no new reading.
            try await receiver.wait { $0.count == 1 }
            #expect(try await Self.state(server, short) == "firing")
            #expect(try await Self.state(server, long) == "pending")
            // Back below: the pending rule returns to ok without a word; the firing one resolves.
            try await Self.post(server, "boiler", 70)
            try await receiver.wait { $0.count == 2 }
            try await Self.drained(server)
            #expect(try await Self.state(server, long) == "ok")
            #expect(receiver.accepted.map(\.path) == ["/short", "/short"])
            #expect(Self.states(receiver.accepted) == ["firing", "resolved"])
            #expect(receiver.accepted[0].json?["value"] == .number(85))
        }
    }

    @Test func silentFiresWhenReadingsStopAndResolvesWithTheNext() async throws {
        let receiver = try WebhookReceiver()
        try await Self.withAlertServer { server in
            try await Self.post(server, "porch", 1)
            let id = try await Self.rule(server, #"""
                {"name":"Porch silent","sensor":"porch","condition":"silent","for":1,"notify":["\#(receiver.url())"]}
                """#)
            try await receiver.wait { $0.count == 1 }
            #expect(try await Self.state(server, id) == "firing")
            let firing = try #require(receiver.requests[0].json)
            #expect(firing["value"] == .null && firing["threshold"] == .null && firing["condition"] == .string("silent"))
            #expect(firing["message"] == .string("Porch silent: no reading from Porch for 1s"))
            try await Self.post(server, "porch", 2)
            try await receiver.wait { $0.count == 2 }
            try await Self.drained(server)
            #expect(Self.states(receiver.accepted) == ["firing", "resolved"])
            #expect(receiver.accepted[1].json?["value"] == .number(2))
        }
    }

    @Test func repeatRemindsWhileFiringAndStopsOnceResolved() async throws {
        let receiver = try WebhookReceiver()
        try await Self.withAlertServer { server in
            try await Self.post(server, "tank", 1)
            let id = try await Self.rule(server, #"""
                {"name":"Tank low","sensor":"tank","condition":"below","threshold":5,"repeat":1,
                 "notify":["\#(receiver.url())"]}
                """#)
            try await Self.post(server, "tank", 2)
            try await receiver.wait { $0.count == 3 }
            try await Self.post(server, "tank", 8)
            #expect(try await Self.state(server, id) == "ok")
            try await receiver.wait { Self.states($0).last == "resolved" }
            try await Self.drained(server)
            let states = Self.states(receiver.accepted)
            #expect(states.count >= 4 && states.last == "resolved")
            #expect(states.dropLast().allSatisfy { $0 == "firing" })
            #expect(receiver.accepted[1].json?["message"] == .string("Tank low (still firing): Tank is 2, below 5"))
        }
    }

    /// Readings that come by the ingest paths' store call (line protocol,
    /// MQTT) are judged as REST ones are: alerts hook the commit, not a route.
    @Test func readingsFromTheSeriesIngestPathAreJudgedToo() async throws {
        let receiver = try WebhookReceiver()
        try await Self.withAlertServer { server in
            let series = Series(identity: SeriesIdentity(source: "mqtt", parts: ["porch/temp", ""]), preferredCode: "porch_temp")
            try await server.storage.ingestCommitted([SeriesPoint(series: series, value: 20)])
            _ = try await Self.rule(server, #"""
                {"name":"Porch hot","sensor":"porch_temp","condition":"above","threshold":30,"notify":["\#(receiver.url())"]}
                """#)
            try await server.storage.ingestCommitted([SeriesPoint(series: series, value: 31)])
            try await receiver.wait { $0.count == 1 }
            server.storage.ingest([SeriesPoint(series: series, value: 25)], allOrNothing: false, receivedAt: .now()) { _ in }
            try await receiver.wait { $0.count == 2 }
            try await Self.drained(server)
            #expect(Self.states(receiver.accepted) == ["firing", "resolved"])
            #expect(receiver.accepted.map { $0.json?["value"] } == [.number(31), .number(25)])
        }
    }

    // MARK: delivery

    @Test func ntfyGetsItsPlainTextFormWithCredentialsSentButNeverLogged() async throws {
        let receiver = try WebhookReceiver()
        try await Self.withAlertServer { server in
            try await Self.post(server, "freezer", -20)
            let target = "ntfy:http://lab:s3cret-pass@127.0.0.1:\(receiver.port)/my-lab?auth=tok3n"
            _ = try await Self.rule(server, #"""
                {"name":"Gefrierschrank zu warm","sensor":"freezer","condition":"above","threshold":-10,
                 "notify":["\#(target)"]}
                """#)
            receiver.answer([500])
            try await Self.post(server, "freezer", -5)
            try await Self.post(server, "freezer", -15)
            try await receiver.wait { $0.count == 3 }
            try await Self.drained(server)
            let got = receiver.accepted
            #expect(got.map(\.path) == ["/my-lab?auth=tok3n", "/my-lab?auth=tok3n"])
            #expect(got.map(\.body) == ["Gefrierschrank zu warm: Freezer is -5, above -10",
                                        "Gefrierschrank zu warm resolved: Freezer is -15"])
            #expect(got.map { $0.headers["title"] } == ["Gefrierschrank zu warm", "Resolved: Gefrierschrank zu warm"])
            #expect(got.map { $0.headers["priority"] } == ["high", "default"])
            #expect(got.map { $0.headers["tags"] } == ["warning", "white_check_mark"])
            #expect(got[0].headers["authorization"] == "Basic " + Data("lab:s3cret-pass".utf8).base64EncodedString())
            #expect(got[0].headers["content-type"]?.hasPrefix("text/plain") == true)
            // The failed attempt was logged, without the secrets.
            let logs = server.logs.entries.map { "\($0.message) \($0.metadata)" }.joined(separator: "\n")
            #expect(logs.contains("ntfy:http://127.0.0.1:\(receiver.port)/my-lab?…"))
            #expect(!logs.contains("s3cret") && !logs.contains("tok3n"))
        }
    }

    @Test func aReceiverDownThenUpGetsTheNotificationOnce() async throws {
        let receiver = try WebhookReceiver()
        try receiver.down()
        try await Self.withAlertServer { server in
            try await Self.post(server, "door", 0)
            _ = try await Self.rule(server, #"""
                {"name":"Door open","sensor":"door","condition":"above","threshold":0.5,"notify":["\#(receiver.url())"]}
                """#)
            try await Self.post(server, "door", 1)
            try await waitUntil("two failed attempts") {
                try server.storage.pendingNotifications().map(\.attempts).max() ?? 0 >= 2
            }
            try receiver.up()
            try await receiver.wait { $0.count == 1 }
            try await Self.drained(server)
            #expect(receiver.requests.count == 1)
            #expect(Self.states(receiver.accepted) == ["firing"])
        }
    }

    /// openapi-check fuzzes rules with any notify URL; with loopbackOnly
    /// (`--alert-loopback-only`) nothing may leave the machine, while a
    /// receiver on loopback still gets its notification.
    @Test func loopbackOnlySendsNothingOffTheMachine() async throws {
        let receiver = try WebhookReceiver()
        try await withTestServer(configure: { configuration in
            Self.fast(&configuration)
            configuration.alerts.loopbackOnly = true
        }) { server in
            try await Self.post(server, "door", 0)
            // 192.0.2.1 is TEST-NET-1: never routed, so a connection attempt would hang to the timeout.
            _ = try await Self.rule(server, #"""
                {"name":"Door open","sensor":"door","condition":"above","threshold":0.5,
                 "notify":["\#(receiver.url())","http://192.0.2.1:9/hook"]}
                """#)
            try await Self.post(server, "door", 1)
            try await receiver.wait { $0.count == 1 }
            let refused = try #require(try await poll(seconds: 10) {
                try await server.column("SELECT last_error FROM alert_outbox WHERE url LIKE '%192.0.2.1%'").first ?? nil
            }, "the off-machine attempt was not refused")
            #expect(refused == "not sent: the server delivers only to loopback")
            #expect(Self.states(receiver.accepted) == ["firing"])
        }
    }

    @Test func fiveHundredThenTwoHundredIsDeliveredOnce() async throws {
        let receiver = try WebhookReceiver()
        receiver.answer([500, 503])
        try await Self.withAlertServer { server in
            try await Self.post(server, "door", 0)
            _ = try await Self.rule(server, #"""
                {"name":"Door open","sensor":"door","condition":"above","threshold":0.5,"notify":["\#(receiver.url())"]}
                """#)
            try await Self.post(server, "door", 1)
            try await receiver.wait { $0.count == 3 }
            try await Self.drained(server)
            #expect(receiver.requests.map(\.status) == [500, 503, 200])
            #expect(Set(receiver.requests.map(\.body)).count == 1)
            let metrics = try await server.reader.get("/metrics").text
            #expect(metrics.contains("sensei_alert_notifications_sent_total 1"))
            #expect(metrics.contains("sensei_alert_notifications_failed_total 0"))
            #expect(metrics.contains("sensei_alert_outbox_pending 0"))
            #expect(metrics.contains(#"sensei_alert_rules{state="firing"} 1"#))
        }
    }

    /// A receiver that holds its answer past the timeout slows nothing else:
    /// readings are stored and acknowledged while it holds.
    @Test func aSlowReceiverNeverSlowsIngestion() async throws {
        let receiver = try WebhookReceiver()
        receiver.slow(6)
        try await Self.withAlertServer { server in
            try await Self.post(server, "door", 0)
            _ = try await Self.rule(server, #"""
                {"name":"Door open","sensor":"door","condition":"above","threshold":0.5,"notify":["\#(receiver.url())"]}
                """#)
            try await Self.post(server, "door", 1)
            try await waitUntil("the receiver holds the request") { receiver.isHolding }
            for value in 0..<10 { try await Self.post(server, "other", Double(value)) }
            #expect(receiver.isHolding)
            #expect(try await server.reader.get("/sensors/other").json["count"] == .number(10))
            receiver.slow(0)
            // Timed out once (1 s), so retried: the receiver took it in the end.
            try await receiver.wait { $0.contains { $0.status == 200 } && $0.count >= 2 }
            try await Self.drained(server)
        }
    }

    // MARK: restarts

    @Test func aRuleFiringBeforeARestartDoesNotFireAgainAfterIt() async throws {
        let receiver = try WebhookReceiver()
        try await withTemporaryDirectory { directory in
            let id: Int64 = try await Self.withAlertServer(dataDirectory: directory) { server in
                try await Self.post(server, "freezer", -20)
                let id = try await Self.rule(server, #"""
                    {"name":"Freezer","sensor":"freezer","condition":"above","threshold":-10,"notify":["\#(receiver.url())"]}
                    """#)
                try await Self.post(server, "freezer", -5)
                try await receiver.wait { $0.count == 1 }
                try await Self.drained(server)
                return id
            }
            try await Self.withAlertServer(dataDirectory: directory) { server in
                #expect(try await Self.state(server, id) == "firing")
                try await Self.post(server, "freezer", -4)
                try await Self.post(server, "freezer", -15)
                try await receiver.wait { $0.count == 2 }
                try await Self.drained(server)
                #expect(Self.states(receiver.accepted) == ["firing", "resolved"])
            }
        }
    }

    @Test func aSilenceThatBeganWhileTheServerWasDownIsNoticedAtStart() async throws {
        let receiver = try WebhookReceiver()
        try await withTemporaryDirectory { directory in
            let id: Int64 = try await Self.withAlertServer(dataDirectory: directory) { server in
                try await Self.post(server, "porch", 1)
                return try await Self.rule(server, #"""
                    {"name":"Porch silent","sensor":"porch","condition":"silent","for":2,"notify":["\#(receiver.url())"]}
                    """#)
            }
            // Down for longer than the silence (a condition on the clock, not a guess).
            let downUntil = Date().addingTimeInterval(2.2)
            try await waitUntil("the silence passed") { Date() > downUntil }
            try await Self.withAlertServer(dataDirectory: directory) { server in
                try await receiver.wait { $0.count == 1 }
                #expect(try await Self.state(server, id) == "firing")
                try await Self.drained(server)
                #expect(Self.states(receiver.accepted) == ["firing"])
            }
        }
    }

    /// SIGKILL after the transition is stored and before the receiver took
    /// it: the next start delivers it, exactly once.
    @Test func aSIGKILLBetweenTheTransitionAndItsDeliveryLosesNothing() async throws {
        let receiver = try WebhookReceiver()
        try receiver.down()
        try await withTemporaryDirectory { directory in
            let token = "sensei_alert-test-token"
            let flags = ["--alert-tick", "0.05", "--alert-retry", "0.1", "--alert-timeout", "1"]
            let (first, port) = try await ServerProcess.start(dataDirectory: directory, environment: ["SENSEI_TOKEN": token],
                                                        extraArguments: flags)
            let client = TestHTTPClient(port: port, token: token)
            #expect(try await client.post("/sensors/door/data", json: #"{"value":0}"#).status == 201)
            #expect(try await client.post("/alerts", json: #"""
                {"name":"Door open","sensor":"door","condition":"above","threshold":0.5,"notify":["\#(receiver.url())"]}
                """#).status == 201)
            #expect(try await client.post("/sensors/door/data", json: #"{"value":1}"#).status == 201)
            try await waitUntil("queued") {
                try await client.get("/metrics").text.contains("sensei_alert_outbox_pending 1")
            }
            #expect(await first.stop(signal: SIGKILL) == SIGKILL)
            try receiver.up()
            let (second, port2) = try await ServerProcess.start(dataDirectory: directory, environment: ["SENSEI_TOKEN": token],
                                                          extraArguments: flags)
            let again = TestHTTPClient(port: port2, token: token)
            try await receiver.wait { $0.count == 1 }
            try await waitUntil("outbox empty") {
                try await again.get("/metrics").text.contains("sensei_alert_outbox_pending 0")
            }
            #expect(try await again.get("/alerts").json["alerts"]?[0]?["state"] == .string("firing"))
            #expect(await second.stop(signal: SIGTERM) == 0)
            #expect(receiver.requests.count == 1)
            #expect(Self.states(receiver.accepted) == ["firing"])
        }
    }
}
