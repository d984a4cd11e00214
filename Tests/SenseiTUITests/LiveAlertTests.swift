import Foundation
import SenseiModels
import Testing
import SenseiTestSupport
@testable import SenseiTUI
@testable import SenseiClient

/// Alert rules on the live stream: `event: alert` decoded, applied to the
/// model (`!` marks, the `a` screen) and to the cache's copy; `a` fetching
/// the rules again; `sensei watch`'s lines for a transition.
@Suite struct LiveAlertTests {
    static let since = Fixture.now.adding(milliseconds: -Fixture.minute)

    static func rule(_ id: Int64 = 7, name: String = "Porch too warm", sensor: String = "temperature_ext",
                     state: AlertStatus.State = .ok, value: Double? = nil, since: Timestamp = since) -> AlertStatus {
        AlertStatus(id: id, name: name, sensor: sensor, condition: "above", threshold: 30, state: state,
                    since: since, value: value)
    }

    func parse(_ text: String) -> [LiveEvent] {
        var parser = EventParser()
        var buffer = Array(text.utf8)
        return parser.take(&buffer)
    }

    // MARK: decoding

    @Test func alertEventsDecodeBesideReadings() {
        let events = parse("""
            : sensei live readings
            retry: 2000

            event: reading
            data: {"sensor":"porch","id":1,"timestamp":"2025-01-09T12:00:00Z","value":23.5}

            event: alert
            data: {"change":"state","alert":{"id":7,"name":"Porch too warm","sensor":"temperature_ext","condition":"above","threshold":30,"for":0,"hysteresis":0,"notify":[],"state":"firing","since":"2025-01-09T11:59:00Z","value":31.5}}

            : heartbeat

            event: alert
            data: {"change":"created","alert":{"id":8,"name":"Damp","sensor":"humidity","condition":"above","threshold":70,"state":"ok","since":"2025-01-09T11:59:00Z","value":null}}

            event: alert
            data: {"change":"deleted","alert":{"id":8}}


            """)
        #expect(events == [
            .reading(LiveReading(sensorId: 1, code: "porch",
                                 reading: Reading(timestamp: Timestamp(milliseconds: 1_736_424_000_000), value: 23.5))),
            .alert(.state(Self.rule(state: .firing, value: 31.5))),
            .alert(.created(AlertStatus(id: 8, name: "Damp", sensor: "humidity", condition: "above", threshold: 70,
                                        state: .ok, since: Self.since, value: nil))),
            .alert(.deleted(id: 8)),
        ])
    }

    @Test func crlfUnnamedAndUnknownEvents() {
        let events = parse("event: alert\r\ndata: {\"change\":\"changed\",\"alert\":{\"id\":7,\"name\":\"Porch too warm\","
            + "\"sensor\":\"temperature_ext\",\"condition\":\"above\",\"threshold\":30,\"state\":\"ok\","
            + "\"since\":\"2025-01-09T11:59:00Z\",\"value\":null}}\r\n\r\n"
            // A reading without an event name, as servers from before alerts sent them.
            + "data: {\"sensor\":\"porch\",\"id\":1,\"timestamp\":\"2025-01-09T12:00:00Z\",\"value\":1}\n\n"
            // Names and changes this client does not know yet are skipped.
            + "event: note\ndata: {\"text\":\"hello\"}\n\n"
            + "event: alert\ndata: {\"change\":\"renamed\",\"alert\":{\"id\":7}}\n\n"
            + "event: alert\ndata: {\"change\":\"state\",\"alert\":{\"id\":7}}\n\n")
        #expect(events == [
            .alert(.changed(Self.rule())),
            .reading(LiveReading(sensorId: 1, code: "porch",
                                 reading: Reading(timestamp: Timestamp(milliseconds: 1_736_424_000_000), value: 1))),
        ])
    }

    @Test func applyingChanges() {
        let rules = [Self.rule(1, name: "A"), Self.rule(2, name: "B")]
        #expect(rules.applying(.state(Self.rule(2, name: "B", state: .firing, value: 31))).map(\.state) == [.ok, .firing])
        #expect(rules.applying(.created(Self.rule(3, name: "C"))).map(\.id) == [1, 2, 3])
        #expect(rules.applying(.changed(Self.rule(1, name: "A2"))).map(\.name) == ["A2", "B"])
        #expect(rules.applying(.deleted(id: 1)).map(\.id) == [2])
        #expect(rules.applying(.deleted(id: 9)) == rules)
        // A state change of a rule not seen yet (created while the stream was down) is taken in.
        #expect(rules.applying(.state(Self.rule(4, name: "D", state: .pending))).map(\.id) == [1, 2, 4])
    }

    // MARK: the model

    @Test func aRuleMovingMarksAndClearsTheSensorWithoutAKey() {
        var model = Fixture.model()
        _ = model.update(.alertsLoaded([]))
        #expect(model.update(.alertChanged(.created(Self.rule()))) == [])
        #expect(model.alerts == [Self.rule()])
        #expect(model.firingSensors.isEmpty)
        _ = model.update(.alertChanged(.state(Self.rule(state: .firing, value: 31.5))))
        #expect(model.firingSensors == ["temperature_ext"])
        #expect(AppView.render(model).text.split(separator: "\n")[2].hasPrefix("▸ !External Temperature"))
        _ = model.update(.alertChanged(.state(Self.rule(state: .ok, value: 29))))
        #expect(model.firingSensors.isEmpty)
        #expect(AppView.render(model).text.split(separator: "\n")[2].hasPrefix("▸  External Temperature"))
        _ = model.update(.alertChanged(.deleted(id: 7)))
        #expect(model.alerts.isEmpty)
    }

    @Test func theAlertsScreenFollowsTheStream() {
        var model = Fixture.model(width: 80, height: 8)
        _ = model.update(.keyPressed(.character("a")))
        #expect(AppView.render(model).text.contains("No alert rules on this server."))
        _ = model.update(.alertChanged(.created(Self.rule())))
        _ = model.update(.alertChanged(.state(Self.rule(state: .firing, value: 31.5))))
        // snapshot: a rule created and firing since the screen opened
        #expect(AppView.render(model).text == """
             Alerts                                                                1 firing
             State   Name            Sensor           Condition  Since           Value
             firing  Porch too warm  temperature_ext  above 30   11:59 (1m ago)  31.5




            ● online · synced 12s ago                 ↑↓ scroll  Esc back  r refresh  q quit
            """)
        _ = model.update(.alertChanged(.deleted(id: 7)))
        #expect(AppView.render(model).text.contains("No alert rules on this server."))
    }

    @Test func aListFetchedBeforeAChangeDoesNotUndoIt() {
        var model = Fixture.model()
        #expect(model.update(.keyPressed(.character("a"))) == [.fetchAlerts])
        // While the fetch is answered, the stream brings a new rule, firing.
        let firing = Self.rule(state: .firing, value: 31.5, since: Fixture.now)
        _ = model.update(.alertChanged(.created(Self.rule())))
        _ = model.update(.alertChanged(.state(firing)))
        // The list, fetched before: the rule stays, firing.
        _ = model.update(.alertsLoaded([]))
        #expect(model.alerts == [firing])
        // A list fetched after a later move keeps its newer state.
        let resolved = Self.rule(state: .ok, value: 29, since: Fixture.now.adding(milliseconds: 5_000))
        _ = model.update(.alertsLoaded([resolved]))
        #expect(model.alerts == [resolved])
        // A deletion holds over a list from before it.
        _ = model.update(.alertChanged(.deleted(id: 7)))
        _ = model.update(.alertsLoaded([resolved]))
        #expect(model.alerts.isEmpty)
        // Minutes later the changes are forgotten: a list is taken as it is.
        _ = model.update(.tick(Fixture.now.adding(milliseconds: 3 * Fixture.minute)))
        _ = model.update(.alertsLoaded([resolved]))
        #expect(model.alerts == [resolved])
    }

    @Test func aFetchesTheRulesWhileOnlineOnly() {
        var online = Fixture.model()
        #expect(online.update(.keyPressed(.character("a"))) == [.fetchAlerts])
        #expect(online.screen == .alerts)
        // Back and again: each opening asks.
        _ = online.update(.keyPressed(.escape))
        #expect(online.update(.keyPressed(.character("a"))) == [.fetchAlerts])

        var offline = Fixture.model()
        _ = offline.update(.syncFailed(.unreachable("connection refused"), at: Fixture.now))
        _ = offline.update(.alertsLoaded([Self.rule(state: .firing)]))
        #expect(offline.update(.keyPressed(.character("a"))) == [])
        #expect(offline.screen == .alerts && offline.alerts == [Self.rule(state: .firing)])

        var unconfigured = AppModel(width: 80, height: 24, now: Fixture.now, serverName: nil)
        #expect(unconfigured.update(.keyPressed(.character("a"))) == [])
    }

    // MARK: the cache

    @Test func theCachesRulesFollowTheChangesAcrossAReopen() throws {
        try withScratchDirectory { directory in
            let path = directory + "/cache.sqlite"
            do {
                let cache = try SensorCache(path: path)
                try cache.saveAlerts([Self.rule(1, name: "A")])
                #expect(try cache.applyAlertChange(.created(Self.rule(2, name: "B"))).map(\.id) == [1, 2])
                try cache.applyAlertChange(.state(Self.rule(2, name: "B", state: .firing, value: 31)))
                try cache.applyAlertChange(.deleted(id: 1))
            }
            let reopened = try SensorCache(path: path)
            #expect(try reopened.cachedAlerts() == [Self.rule(2, name: "B", state: .firing, value: 31)])
            #expect(try reopened.cachedAlerts().firingSensors == ["temperature_ext"])
            // A list fetched before the stream moved rule 2 on leaves its newer state; the rest is the list's.
            let moved = Self.rule(2, name: "B", state: .ok, value: 28, since: Fixture.now)
            try reopened.applyAlertChange(.state(moved))
            try reopened.saveFetchedAlerts([Self.rule(2, name: "B", state: .firing, value: 31), Self.rule(5, name: "E")])
            #expect(try reopened.cachedAlerts() == [moved, Self.rule(5, name: "E")])
        }
    }

    // MARK: sensei watch

    @Test func watchLinesForATransition() {
        let firing = AlertStatus(id: 3, name: "Freezer too warm", sensor: "freezer", condition: "above", threshold: -10,
                                 state: .firing, since: Timestamp(milliseconds: 1_736_424_060_000), value: -8.5)
        #expect(WatchCommand.line(firing, units: "°C")
                == "2025-01-09T12:01:00Z freezer alert firing: Freezer too warm (-8.5 °C, above -10)")
        var resolved = firing
        resolved.state = .ok
        resolved.value = -11.25
        #expect(WatchCommand.line(resolved, units: "")
                == "2025-01-09T12:01:00Z freezer alert ok: Freezer too warm (-11.25, above -10)")
        let silent = AlertStatus(id: 4, name: "Door quiet", sensor: "door", condition: "silent", threshold: nil,
                                 state: .firing, since: Timestamp(milliseconds: 1_736_424_000_000), value: nil)
        #expect(WatchCommand.line(silent, units: "") == "2025-01-09T12:00:00Z door alert firing: Door quiet (silent)")
        #expect(WatchCommand.jsonLine(firing, units: "°C") == #"""
            {"event":"alert","id":3,"name":"Freezer too warm","sensor":"freezer","state":"firing","since":"2025-01-09T12:01:00Z","value":-8.5,"units":"°C","condition":"above","threshold":-10}
            """#)
        #expect(WatchCommand.jsonLine(silent, units: "") == #"""
            {"event":"alert","id":4,"name":"Door quiet","sensor":"door","state":"firing","since":"2025-01-09T12:00:00Z","value":null,"units":"","condition":"silent","threshold":null}
            """#)
        // A usage rule: its value in the usage's units, whatever the sensor's.
        let usage = AlertStatus(id: 5, name: "Heat pump", sensor: "heat_pump", condition: "usage_above", threshold: 30,
                                interval: "day", timeZone: "Europe/Berlin", units: "kWh", state: .firing,
                                since: Timestamp(milliseconds: 1_736_424_000_000), value: 30.4)
        #expect(WatchCommand.line(usage, units: "W")
                == "2025-01-09T12:00:00Z heat_pump alert firing: Heat pump (30.4 kWh, usage_above 30 kWh/day Europe/Berlin)")
        #expect(WatchCommand.jsonLine(usage, units: "W") == #"""
            {"event":"alert","id":5,"name":"Heat pump","sensor":"heat_pump","state":"firing","since":"2025-01-09T12:00:00Z","value":30.4,"units":"kWh","condition":"usage_above","threshold":30,"interval":"day","tz":"Europe/Berlin"}
            """#)
        let reading = LiveReading(sensorId: 1, code: "freezer",
                                  reading: Reading(timestamp: Timestamp(milliseconds: 1_736_424_000_250), value: -18.5))
        #expect(WatchCommand.jsonLine(reading, units: "°C") == #"""
            {"event":"reading","sensor":"freezer","id":1,"timestamp":"2025-01-09T12:00:00.250Z","value":-18.5,"units":"°C"}
            """#)
    }

    @Test func watchRetriesWhatMayPassAndEndsOnARefusal() {
        #expect(WatchCommand.isTransient(.unreachable("connection refused")))
        #expect(WatchCommand.isTransient(.server(status: 503, message: "32 streams are open")))
        #expect(WatchCommand.isTransient(.server(status: 502, message: "Bad Gateway")))
        #expect(!WatchCommand.isTransient(.server(status: 404, message: "no sensor 'nope'")))
        #expect(!WatchCommand.isTransient(.unauthorized))
        #expect(!WatchCommand.isTransient(.forbidden))
    }
}
