import Testing
import SenseiModels
@testable import SenseiTUI
@testable import SenseiClient

/// The list's `/` filter, `g` grouping, `!` marks for firing alerts and the
/// `a` alerts screen: keys through `update`, screens as text.
@Suite struct ListFilterGroupAlertsTests {
    func screen(_ model: AppModel) -> String { AppView.render(model).text }

    func press(_ model: AppModel, _ keys: Key...) -> AppModel {
        var model = model
        for key in keys { _ = model.update(.keyPressed(key)) }
        return model
    }

    func type(_ model: AppModel, _ text: String) -> AppModel {
        var model = model
        for character in text { _ = model.update(.keyPressed(.character(character))) }
        return model
    }

    /// The fixture's sensors, labelled as a house would have them.
    static var labelled: [SensorSummary] {
        var sensors = Fixture.summaries + [Fixture.empty]
        sensors[0].sensor.labels = ["room": "outside", "source": "mqtt"]
        sensors[1].sensor.labels = ["room": "bathroom"]
        sensors[2].sensor.labels = ["room": "outside", "device": "door-node"]
        return sensors
    }

    static func model(width: Int = 80, height: Int = 24, charset: Charset = .unicode) -> AppModel {
        Fixture.model(width: width, height: height, sensors: labelled, charset: charset)
    }

    static let alerts = [
        AlertStatus(id: 1, name: "Door open", sensor: "door", condition: "above", threshold: 0.5, state: .firing,
                    since: Fixture.now.adding(milliseconds: -3 * Fixture.minute), value: 1),
        AlertStatus(id: 2, name: "Bathroom damp", sensor: "humidity", condition: "above", threshold: 70,
                    state: .pending, since: Fixture.now.adding(milliseconds: -Fixture.minute), value: 72.5),
        AlertStatus(id: 3, name: "Outside silent", sensor: "temperature_ext", condition: "silent", threshold: nil,
                    state: .ok, since: Fixture.now.adding(milliseconds: -2 * Fixture.hour), value: nil),
    ]

    // MARK: filter

    @Test func slashFiltersAsYouTypeEnterKeepsEscClears() {
        var model = type(press(Self.model(), .character("/")), "HUM")
        #expect(model.filterDraft == "HUM")
        #expect(model.selectedSensor?.sensor.code == "humidity")
        // snapshot: the prompt open
        #expect(screen(model) == """
             Sensei · sensei.lan:3000                                        1 of 4 sensors
               Name                  Value   Updated  Last 24 h
            ▸  Humidity               42 %    6h ago  ▁▃▅▆▇█▁▃▄▅▆█▁▂▃▅▆▇█▁▃▅▅▆         stale




















            /HUM▏                                                      Enter keep  Esc clear
            """)
        model = press(model, .enter)
        #expect(model.filterDraft == nil && model.filter == SensorFilter(text: "HUM"))
        #expect(model.listLayout.order.map { model.sensors[$0].sensor.code } == ["humidity"])
        // Enter on the kept filter opens the one sensor shown.
        #expect(press(model, .enter).detail?.sensorId == model.sensors[1].id)
        // Esc clears a kept filter; `/` then Esc clears it too.
        #expect(press(model, .escape).listLayout.order.count == 4)
        #expect(press(model, .character("/"), .escape).filter.isEmpty)
    }

    @Test func typingQInThePromptIsTextNotQuit() {
        var model = press(Self.model(), .character("/"))
        let commands = model.update(.keyPressed(.character("q")))
        #expect(commands.isEmpty && model.filterDraft == "q")
        model = press(model, .backspace, .backspace)
        #expect(model.filterDraft == "")
        // A label value matches: "door-node" is the door's device.
        model = type(model, "node")
        #expect(model.listLayout.order.map { model.sensors[$0].sensor.code } == ["door"])
    }

    @Test func aFilterMatchingNothingSaysSo() {
        let model = press(type(press(Self.model(width: 60, height: 8), .character("/")), "zzz"), .enter)
        #expect(model.selectedSensor == nil)
        #expect(press(model, .enter).screen == .list)
        // snapshot: nothing matches
        #expect(screen(model) == """
             Sensei · sensei.lan:3000                    0 of 4 sensors
               Name                  Value   Updated  Last 24 h





            ● online · synced 12s ago   ⏎ open  / filter  ? help  q quit
            """)
    }

    // MARK: grouping

    @Test func gCyclesThroughLabelKeysThenNone() {
        let model = Self.model()
        #expect(ListLayout.groupKeys(of: model.sensors) == ["device", "room", "source"])
        #expect(press(model, .character("g")).grouping == "device")
        #expect(press(model, .character("g"), .character("g")).grouping == "room")
        #expect(press(model, .character("g"), .character("g"), .character("g")).grouping == "source")
        #expect(press(model, .character("g"), .character("g"), .character("g"), .character("g")).grouping == nil)
    }

    @Test func groupsHaveHeadersAndKeepTheUsersOrderWithin() {
        var model = press(Self.model(), .character("g"), .character("g"))
        #expect(model.grouping == "room")
        // The selection stays on the sensor it was on.
        #expect(model.selectedSensor?.sensor.code == "temperature_ext")
        // snapshot: grouped by room
        #expect(screen(model) == """
             Sensei · sensei.lan:3000                                   4 sensors · by room
               Name                  Value   Updated  Last 24 h
            ── room: bathroom (1) ──────────────────────────────────────────────────────────
               Humidity               42 %    6h ago  ▁▃▅▆▇█▁▃▄▅▆█▁▂▃▅▆▇█▁▃▅▅▆         stale
            ── room: outside (2) ───────────────────────────────────────────────────────────
            ▸  External Temperature  25 °C    3m ago  ▁▁▁▂▂▂▂▃▃▃▃▃▄▄▄▅▅▅▅▆▆▆▆▆▇▇▇▇███
               Front door               on   45s ago                              ▁▁█
            ── no room (1) ─────────────────────────────────────────────────────────────────
               New probe                 —     never














            ● online · synced 12s ago                       ⏎ open  / filter  ? help  q quit
            """)
        // Down moves in screen order, over the headers.
        model = press(model, .down)
        #expect(model.selectedSensor?.sensor.code == "door")
        // K moves the door above the temperature within its group and saves the whole order.
        var moved = model
        let commands = moved.update(.keyPressed(.character("K")))
        #expect(moved.listLayout.order.map { moved.sensors[$0].sensor.code } == ["humidity", "door", "temperature_ext", "new_probe"])
        #expect(commands == [.saveOrder(moved.sensors.map(\.id))])
        // It never crosses into another group.
        #expect(press(model, .up, .up, .character("K")).sensors == model.sensors)
    }

    @Test func groupedInASCIIWithoutColours() {
        let model = press(Self.model(width: 40, height: 10, charset: .ascii), .character("g"), .character("g"))
        // snapshot: ascii, narrow
        #expect(screen(model) == """
             Sensei | sensei.lan:3000
               Name                  Value   Updated
            -- room: bathroom (1) ------------------
              !Humidity               42 %    6h ago
            -- room: outside (2) -------------------
            >  External Temperat~  25 degC    3m ago
               Front door               on   45s ago
            -- no room (1) -------------------------
               New probe                 -     never
            * online | synced 12s ago
            """)
    }

    // MARK: alerts

    @Test func aFiringAlertMarksItsSensor() {
        var model = Self.model(width: 60, height: 8)
        _ = model.update(.alertsLoaded(Self.alerts))
        let grid = AppView.render(model)
        // snapshot: the door's alert fires; the humidity's is only pending
        #expect(grid.text == """
             Sensei · sensei.lan:3000                         4 sensors
               Name                  Value   Updated  Last 24 h
            ▸  External Temperature  25 °C    3m ago  ▁▂▂▃▄▅▅▆▇▇█
               Humidity               42 %    6h ago  ▁█▁▆█▆█▃▆    stale
              !Front door               on   45s ago            ▄
               New probe                 —     never

            ● online · synced 12s ago   ⏎ open  / filter  ? help  q quit
            """)
        // In the error colour, bold.
        #expect(grid[2, 4].style == CellStyle(bold: true, role: .error))
    }

    @Test func aOpensTheAlertsScreenFiringFirst() {
        var model = Self.model()
        _ = model.update(.alertsLoaded(Self.alerts))
        model = press(model, .character("a"))
        #expect(model.screen == .alerts)
        // snapshot: alerts 80x10
        model.height = 10
        #expect(screen(model) == """
             Alerts                                                                1 firing
             State    Name            Sensor           Condition  Since           Value
             firing   Door open       door             above 0.5  11:57 (3m ago)  1
             pending  Bathroom damp   humidity         above 70   11:59 (1m ago)  72.5
             ok       Outside silent  temperature_ext  silent     10:00 (2h ago)  -




            ● online · synced 12s ago                 ↑↓ scroll  Esc back  r refresh  q quit
            """)
        #expect(AppView.render(model)[2, 2].style == CellStyle(bold: true, role: .error))
        #expect(press(model, .escape).screen == .list)
        #expect(press(model, .character("a")).screen == .list)
        // In the detail screen `a` is still the "all" range.
        #expect(press(Fixture.detailModel(), .character("a")).range == .all)
    }

    /// A usage rule reads as its budget, its value as a usage.
    @Test func theAlertsScreenShowsAUsageRule() {
        var model = Self.model()
        let heatPump = AlertStatus(id: 4, name: "Heat pump", sensor: "heat_pump", condition: "usage_above", threshold: 30,
                                   interval: "day", timeZone: "UTC", units: "kWh", state: .firing,
                                   since: Fixture.now.adding(milliseconds: -26 * Fixture.hour), value: 30.4)
        _ = model.update(.alertsLoaded([heatPump] + Self.alerts))
        model = press(model, .character("a"))
        model.height = 8
        // snapshot: alerts 80x8, with a usage rule that fired yesterday: too wide,
        // so the dates shorten and name, sensor and since give way, not the budget
        #expect(screen(model) == """
             Alerts                                                                2 firing
             State    Name      Sensor      Condition               Since           Value
             firing   Door op…  door        above 0.5               11:57 (3m ago)  1
             firing   Heat pu…  heat_pump   usage_above 30 kWh/day  Jan 08 10:00 …  30.4 kWh
             pending  Bathroo…  humidity    above 70                11:59 (1m ago)  72.5
             ok       Outside…  temperatu…  silent                  10:00 (2h ago)  -

            ● online · synced 12s ago                 ↑↓ scroll  Esc back  r refresh  q quit
            """)
    }

    @Test func theAlertsScreenWithoutRulesAndNarrow() {
        var empty = press(Self.model(width: 40, height: 5), .character("a"))
        #expect(screen(empty) == """
             Alerts                     none firing
             No alert rules on this server.


            ● online · synced 12s ago
            """)
        _ = empty.update(.alertsLoaded(Self.alerts))
        // The date shortens, then the name and the sensor give way.
        let lines = screen(empty).split(separator: "\n")
        #expect(lines[1] == " State    Name  Sensor      Condition  S")
        #expect(lines[2] == " firing   Doo…  door        above 0.5  1")
    }
}
