import Foundation
import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiTUI
@testable import SenseiClient

/// `sensei list --filter/--label` and `sensei alerts`, the real binary against
/// the real server; and the alerts table as text.
@Suite("sensei list filters and sensei alerts")
struct AlertsAndListFilterCommandTests {
    static func environment(_ scratch: Scratch, _ server: LiveServer) -> [String] {
        ["XDG_CACHE_HOME=\(scratch.root)/cache", "XDG_CONFIG_HOME=\(scratch.root)/config", "LC_ALL=C.UTF-8",
         "SENSEI_URL=\(server.url.absoluteString)", "SENSEI_TOKEN=\(server.readToken)"]
    }

    /// The codes a `sensei list` printed, in order.
    static func codes(_ output: String) -> [String] {
        output.split(separator: "\n").dropFirst().map { String($0.prefix { $0 != " " }) }
    }

    @Test func listFiltersByTextAndByLabels() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                let now = Timestamp.now().milliseconds
                for code in ["kitchen_temp", "porch", "garage_power"] { try await server.post(code, [(now - 60_000, 1)]) }
                for (code, body) in [
                    ("kitchen_temp", #"{"name":"Kitchen temperature","labels":{"room":"kitchen","source":"mqtt"}}"#),
                    ("porch", #"{"labels":{"room":"outside","device":"porch-node"}}"#),
                    ("garage_power", #"{"name":"Garage power","labels":{"device":"plug-1"},"kind":"counter"}"#),
                ] {
                    #expect(try await server.admin.patch("/sensors/\(code)", json: body).status == 200)
                }
                let environment = Self.environment(scratch, server)
                let list = { (arguments: [String]) async throws -> [String] in
                    let result = try await runSensei(["list"] + arguments, environment: environment)
                    #expect(result.status == 0, "\(arguments): \(result.error)")
                    return Self.codes(result.output)
                }
                #expect(try await list([]) == ["kitchen_temp", "porch", "garage_power"])
                #expect(try await list(["--filter", "KITCHEN"]) == ["kitchen_temp"])
                #expect(try await list(["--filter", "power"]) == ["garage_power"])
                #expect(try await list(["--filter", "plug"]) == ["garage_power"])
                #expect(try await list(["--label", "room:outside"]) == ["porch"])
                #expect(try await list(["--label", "room:kitchen", "--label", "source:mqtt"]) == ["kitchen_temp"])
                #expect(try await list(["--label", "room:kitchen", "--label", "source:influx"]) == [])
                let json = try await runSensei(["list", "--json", "--label", "device:plug-1"], environment: environment)
                let sensors = try #require(try JSONParser.parse(Array(json.output.utf8))["sensors"]?.arrayValue)
                #expect(sensors.compactMap { $0["code"]?.stringValue } == ["garage_power"])
                // The kind, kept in the cache by the sync, as the server has it.
                #expect(sensors.compactMap { $0["kind"]?.stringValue } == ["counter"])
                let all = try await runSensei(["list", "--json"], environment: environment)
                #expect(try JSONParser.parse(Array(all.output.utf8))["sensors"]?.arrayValue?
                    .compactMap { $0["kind"]?.stringValue } == ["gauge", "gauge", "counter"])
                let bad = try await runSensei(["list", "--label", "room"], environment: environment)
                #expect(bad.status != 0)
                #expect(bad.error.contains("--label takes KEY:VALUE, not 'room'"))
            }
        }
    }

    @Test func alertsListFiringFirstAndTheLastSeenWhileOffline() async throws {
        try await withScratch { scratch in
            var environment: [String] = []
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                let now = Timestamp.now().milliseconds
                try await server.post("porch", [(now - 120_000, 5)])
                try await server.post("kitchen_temp", [(now - 120_000, 21)])
                for rule in [
                    #"{"name":"Porch freezing","sensor":"porch","condition":"below","threshold":0,"notify":["http://127.0.0.1:9/hook"]}"#,
                    #"{"name":"Kitchen hot","sensor":"kitchen_temp","condition":"above","threshold":30,"notify":["http://127.0.0.1:9/hook"]}"#,
                ] {
                    #expect(try await server.admin.post("/alerts", json: rule).status == 201)
                }
                try await server.post("kitchen_temp", [(now - 60_000, 35.5)])
                try await waitUntil("the kitchen rule firing") {
                    try await server.reader.get("/alerts").json["alerts"]?.arrayValue?
                        .contains { $0["state"]?.stringValue == "firing" } == true
                }
                environment = Self.environment(scratch, server)
                let table = try await runSensei(["alerts"], environment: environment)
                #expect(table.status == 0, "\(table.error)")
                let lines = table.output.split(separator: "\n").map(String.init)
                #expect(lines.count == 3)
                // SINCE is local time and an age, so its width varies.
                #expect(lines.first?.hasPrefix("STATE   NAME            SENSOR        CONDITION  SINCE  ") == true)
                #expect(lines.first?.hasSuffix("  VALUE") == true)
                #expect(lines.dropFirst().first?.hasPrefix("firing  Kitchen hot     kitchen_temp  above 30   ") == true)
                #expect(lines.dropFirst().first?.hasSuffix("  35.5") == true)
                #expect(lines.last?.hasPrefix("ok      Porch freezing  porch         below 0    ") == true)
                #expect(lines.last?.hasSuffix("  -") == true)

                let json = try await runSensei(["alerts", "--json"], environment: environment)
                let alerts = try #require(try JSONParser.parse(Array(json.output.utf8))["alerts"]?.arrayValue)
                #expect(alerts.compactMap { $0["name"]?.stringValue } == ["Kitchen hot", "Porch freezing"])
                #expect(alerts.compactMap { $0["state"]?.stringValue } == ["firing", "ok"])
                #expect(alerts[0]["value"] == .number(35.5))
                // Notify URLs may hold credentials: never printed.
                #expect(!json.output.contains("notify") && !json.output.contains("127.0.0.1:9"))
            }
            // The server stopped: the rules as last seen, and stderr says so.
            let offline = try await runSensei(["alerts"], environment: environment)
            #expect(offline.status == 0)
            #expect(offline.error.hasPrefix("sensei: server unreachable; showing the alerts last seen"))
            #expect(offline.output.split(separator: "\n").dropFirst().first?.hasPrefix("firing  Kitchen hot") == true)
        }
    }

    @Test func alertsTableAsText() {
        let context = TextReport.Context(now: Fixture.now, utcOffsetSeconds: 0, charset: .unicode)
        let since = Fixture.now.adding(milliseconds: -5 * Fixture.minute)
        let alerts = [
            AlertStatus(id: 2, name: "Door open", sensor: "door", condition: "silent", threshold: nil, state: .pending,
                        since: since, value: nil),
            AlertStatus(id: 1, name: "Freezer too warm", sensor: "freezer_temp", condition: "above", threshold: -10,
                        state: .firing, since: since, value: -8.5),
        ]
        #expect(TextReport.alerts(alerts, context) == """
            STATE    NAME              SENSOR        CONDITION  SINCE                      VALUE
            firing   Freezer too warm  freezer_temp  above -10  2025-01-09 11:55 (5m ago)  -8.5
            pending  Door open         door          silent     2025-01-09 11:55 (5m ago)  -

            """)
        #expect(TextReport.alerts([], context) == "no alert rules\n")
        #expect(alerts.firingSensors == ["freezer_temp"])
    }

    /// A usage rule reads as its budget: threshold with the usage's units,
    /// per interval, and its zone unless UTC; its value is a usage.
    @Test func usageRulesAsText() throws {
        let context = TextReport.Context(now: Fixture.now, utcOffsetSeconds: 0, charset: .unicode)
        let since = Fixture.now.adding(milliseconds: -5 * Fixture.minute)
        let json = #"""
            {"id":3,"name":"Heat pump","sensor":"heat_pump","condition":"usage_above","threshold":30,"interval":"day",
             "tz":"Europe/Berlin","units":"kWh","state":"firing","since":"2025-01-09T11:55:00Z","value":31.25}
            """#
        let heatPump = try AlertStatus(json: JSONParser.parse(Array(json.utf8)))
        let alerts = [
            heatPump,
            AlertStatus(id: 4, name: "Plug hourly", sensor: "plug", condition: "usage_above", threshold: 500,
                        interval: "hour", timeZone: "UTC", units: "Wh", state: .ok, since: since, value: nil),
        ]
        #expect(TextReport.alerts(alerts, context) == """
            STATE   NAME         SENSOR     CONDITION                             SINCE                      VALUE
            firing  Heat pump    heat_pump  usage_above 30 kWh/day Europe/Berlin  2025-01-09 11:55 (5m ago)  31.25 kWh
            ok      Plug hourly  plug       usage_above 500 Wh/hour               2025-01-09 11:55 (5m ago)  -

            """)
        // What the cache keeps of it reads back the same.
        var writer = JSONWriter()
        heatPump.write(to: &writer)
        #expect(try AlertStatus(json: JSONParser.parse(Array(writer.string.utf8))) == heatPump)
    }
}
