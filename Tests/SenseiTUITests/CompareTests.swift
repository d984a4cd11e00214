import Foundation
import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiTUI

/// Space marks, `c` compares: the marks, the commands, the chart and legend
/// as text (with and without colours), and `sensei show A B` through the
/// same chart against the real server.
@Suite struct CompareTests {
    func screen(_ model: AppModel) -> String { AppView.render(model).text }

    func press(_ model: AppModel, _ keys: Key...) -> (AppModel, [Command]) {
        var model = model
        var commands: [Command] = []
        for key in keys { commands += model.update(.keyPressed(key)) }
        return (model, commands)
    }

    /// Temperature and humidity marked (1, 2), compared, their data loaded.
    static func compared(width: Int = 80, height: Int = 24, charset: Charset = .unicode) -> AppModel {
        var model = Fixture.model(width: width, height: height, charset: charset)
        for key: Key in [.character(" "), .down, .character(" "), .character("c")] { _ = model.update(.keyPressed(key)) }
        _ = model.update(.compareLoaded([Fixture.detail(Fixture.temperature, range: .day),
                                         Fixture.detail(Fixture.humidity, range: .day)]))
        return model
    }

    @Test func spaceMarksInOrderAndCNeedsTwo() {
        let model = Fixture.model()
        let (one, _) = press(model, .character(" "))
        #expect(one.marked == [1])
        let (tooFew, commands) = press(one, .character("c"))
        #expect(commands.isEmpty && tooFew.screen == .list)
        #expect(tooFew.errorMessage == "mark 2 to 4 sensors with space, then press c")
        // Space again unmarks.
        #expect(press(one, .character(" ")).0.marked.isEmpty)
        let (two, opened) = press(one, .down, .down, .character(" "), .character("c"))
        #expect(two.marked == [1, 3] && two.screen == .compare)
        #expect(opened == [.saveMarks([1, 3]), .loadCompare(sensorIds: [1, 3], range: .day, window: nil)])
        // Back with Esc: the marks stay.
        let (back, _) = press(two, .escape)
        #expect(back.screen == .list && back.compare == nil && back.marked == [1, 3])
    }

    @Test func atMostFourMarks() {
        var sensors = Fixture.summaries + [Fixture.empty]
        var fifth = Fixture.empty
        fifth.sensor.id = 9
        fifth.sensor.code = "fifth"
        sensors.append(fifth)
        var model = Fixture.model(sensors: sensors)
        for _ in 0..<5 { _ = model.update(.keyPressed(.character(" "))); _ = model.update(.keyPressed(.down)) }
        #expect(model.marked == [1, 2, 3, 4])
        #expect(model.errorMessage == "at most 4 sensors in a compare chart: space unmarks one")
    }

    @Test func marksShowTheLinesNumber() {
        var model = Fixture.model(width: 60, height: 8)
        for key: Key in [.character(" "), .down, .down, .character(" ")] { _ = model.update(.keyPressed(key)) }
        let grid = AppView.render(model)
        let lines = grid.text.split(separator: "\n")
        #expect(lines[2].hasPrefix(" 1 External Temperature"))
        #expect(lines[4].hasPrefix("▸2 Front door"))
        #expect(grid[1, 2].style == CellStyle(bold: true, role: .accent))
        #expect(grid[1, 4].style.role == .series2)
    }

    @Test func compareScreenWithLegend() {
        let model = Self.compared()
        // snapshot: two sensors over the day, 80x24
        #expect(screen(model) == """
             Compare                                                              2 sensors
             1 hour  2 day  3 week  4 month  5 year  6 all
            45┤          ⢀ ⠤             ⢀ ⠤             ⢀ ⠤
              │    ⣀ ⠤ ⠒ ⠁   ⢢     ⣀ ⠤ ⠒ ⠁   ⢢     ⣀ ⠤ ⠒ ⠁   ⢢     ⣀ ⠤ ⠒
            40┤⠤ ⠊             ⠤ ⠊             ⠤ ⠊             ⠤ ⠊
              │
            35┤
              │
              │
            30┤
              │
            25┤                                                                         ⢀⣀⣀⡤
              │                                                              ⢀⣀⣀⡤⠤⠤⠔⠒⠚⠉⠉⠁
              │                                                    ⣀⣀⣀⠤⠤⠴⠒⠒⠉⠉⠉
            20┤                                         ⢀⣀⣀⡤⠤⠤⠒⠒⠊⠉⠉
              │                               ⣀⣀⣠⠤⠤⠒⠒⠚⠉⠉⠁
            15┤                    ⣀⣀⣀⠤⠤⠔⠒⠒⠉⠉⠉
              │         ⢀⣀⣀⠤⠤⠴⠒⠒⠋⠉⠉⠁
            10┤⣀⡤⠤⠤⠒⠒⠒⠉⠉⠁
              └┴────────┴─────────┴────────┴─────────┴─────────┴────────┴─────────┴────────┴
               12:00  15:00     18:00    21:00     00:00     03:00    06:00     09:00  12:00
            1 ⠒⠒⠒⠒ External Temperature  25 °C  10–25 °C
            2 ⠒⠀⠒⠀ Humidity  42 %  40–44 %
            ● online · synced 12s ago                  1-6 range  +/- zoom  Esc back  q quit
            """)
    }

    @Test func compareWithoutColoursStaysReadable() {
        let model = Self.compared(width: 60, height: 16, charset: .ascii)
        // snapshot: ASCII, the humidity dashed every other cell
        #expect(screen(model) == """
             Compare                                          2 sensors
             1 hour  2 day  3 week  4 month  5 year  6 all
            50+
              |    . - - .     . - - .     . - - .     . -
            40+- '         - '         - '         - '
              |
            30+
              |                                                 .....---
            20+                                .....--------'''''
              |               .....--------'''''
            10+...-------''''''
              +-------+------+------+------+------+------+------+-------
                    15:00  18:00  21:00  00:00  03:00  06:00  09:00
            1 ---- External Temperature  25 degC  10-25 degC
            2 - -  Humidity  42 %  40-44 %
            * online | synced 12s ago                   Esc back  q quit
            """)
    }

    @Test func rangesAndZoomReloadTheCompare() {
        let model = Self.compared()
        #expect(press(model, .character("w")).1 == [.loadCompare(sensorIds: [1, 2], range: .week, window: nil)])
        let (zoomed, commands) = press(model, .character("+"))
        let now = Fixture.now.milliseconds, hour = Fixture.hour
        #expect(zoomed.compare?.zoom == (now - 18 * hour)...(now - 6 * hour))
        #expect(commands == [.loadCompare(sensorIds: [1, 2], range: .day, window: (now - 18 * hour)...(now - 6 * hour))])
        // Data for the old window is not shown once zoomed.
        var stale = zoomed
        _ = stale.update(.compareLoaded([Fixture.detail(Fixture.temperature, range: .day),
                                         Fixture.detail(Fixture.humidity, range: .day)]))
        #expect(stale.compare?.data == zoomed.compare?.data)
        #expect(press(zoomed, .character("0")).0.compare?.zoom == nil)
    }

    /// `sensei show` of an on/off sensor draws what the dashboard draws.
    @Test func showAndTheDashboardDrawOneChart() {
        let detail = Fixture.detail(Fixture.door, range: .day)
        let context = TextReport.Context(now: Fixture.now, utcOffsetSeconds: 0, charset: .unicode)
        let text = TextReport.show(detail, context, width: 60, chartHeight: 10)
        let chartLines = text.split(separator: "\n", omittingEmptySubsequences: false).suffix(11).dropLast()
        var grid = CellGrid(width: 60, height: 10)
        let model = Fixture.detailModel(summary: Fixture.door)
        DetailView.chart(for: detail, model: model).render(into: &grid, area: grid.bounds)
        #expect(chartLines.map(String.init) == grid.lines, "\(grid.text)")
        // On/off on a fixed 0…1 axis.
        #expect(grid.lines.first?.hasPrefix("  1┤") == true, "\(grid.text)")
        #expect(grid.lines.contains { $0.hasPrefix("  0┤") })
    }

    @Test func senseiShowOverlaysSensorsFromTheServer() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                let now = Timestamp.now().milliseconds
                try await server.post("porch", series(count: 24, every: 300_000, last: now - 60_000) { 10 + Double($0) / 2 })
                try await server.post("garage", series(count: 12, every: 600_000, last: now - 60_000) { 20 - Double($0) })
                let environment = ["XDG_CACHE_HOME=\(scratch.root)/cache", "XDG_CONFIG_HOME=\(scratch.root)/config",
                                   "SENSEI_URL=\(server.url.absoluteString)", "SENSEI_TOKEN=\(server.readToken)",
                                   "LC_ALL=C.UTF-8"]
                let shown = try await runSensei(["show", "porch", "garage", "--range", "hour", "--width", "60"],
                                          environment: environment)
                #expect(shown.status == 0, "\(shown.error)")
                let lines = shown.output.split(separator: "\n", omittingEmptySubsequences: false)
                #expect(lines[0] == "Compare, last 1 hour")
                #expect(lines[1] == "1 ⠒⠒⠒⠒ Porch (porch)  21.5  min 16  max 21.5")
                #expect(lines[2] == "2 ⠒⠀⠒⠀ Garage (garage)  9  min 9  max 14")
                #expect(lines.count == (3 + 1 + 14 + 1) as Int)  // pinned: the sum alone is too slow to type-check here
                let json = try await runSensei(["show", "porch", "garage", "--json"], environment: environment)
                let array = try #require(try JSONParser.parse(Array(json.output.utf8)).arrayValue)
                #expect(array.compactMap { $0["sensor"]?["code"]?.stringValue } == ["porch", "garage"])
                let tooMany = try await runSensei(["show", "a", "b", "c", "d", "e"], environment: environment)
                #expect(tooMany.status != 0 && tooMany.error.contains("name one to four sensors"))
            }
        }
    }
}
