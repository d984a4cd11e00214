import SenseiModels
import Testing
@testable import SenseiTUI
@testable import SenseiClient

/// A sensor marked for compare (space) whose alert is firing shows both its
/// number and its `!`, in the list and in the compare legend. Issue 38: the
/// mark took the `!`'s cell, so marking a sensor hid its alert.
@Suite struct MarkedFiringSensorTests {
    static let firing = [
        AlertStatus(id: 1, name: "Too warm", sensor: "temperature_ext", condition: "above", threshold: 24,
                    state: .firing, since: Fixture.now.adding(milliseconds: -3 * Fixture.minute), value: 25),
    ]

    /// Temperature (firing) and humidity marked 1 and 2.
    static func marked(width: Int = 80, height: Int = 24) -> AppModel {
        var model = Fixture.model(width: width, height: height)
        _ = model.update(.alertsLoaded(firing))
        for key: Key in [.character(" "), .down, .character(" "), .up] { _ = model.update(.keyPressed(key)) }
        return model
    }

    @Test func theListShowsTheNumberAndTheBang() {
        let model = Self.marked(width: 60, height: 8)
        let grid = AppView.render(model)
        // snapshot: 1 and ! on the temperature, 2 on the (stale) humidity, the door plain
        #expect(grid.text == """
             Sensei · sensei.lan:3000                         3 sensors
               Name                  Value   Updated  Last 24 h
            ▸1!External Temperature  25 °C    3m ago  ▁▂▂▃▄▅▅▆▇▇█
             2 Humidity               42 %    6h ago  ▁█▁▆█▆█▃▆    stale
               Front door               on   45s ago            ▄


            ● online · synced 12s ago   ⏎ open  / filter  ? help  q quit
            """)
        #expect(grid[1, 2].style == CellStyle(bold: true, reverse: true, role: ChartLine.styles[0].role))
        #expect(grid[2, 2].style == CellStyle(bold: true, reverse: true, role: .error))
        #expect(grid[1, 3].style == CellStyle(bold: true, role: ChartLine.styles[1].role))
    }

    /// Narrow, the stale word gives way to a `!` in the same cell as an
    /// alert's; the number keeps its own.
    @Test func narrowTheStaleBangSitsBesideTheNumber() {
        let lines = AppView.render(Self.marked(width: 40, height: 8)).text.split(separator: "\n")
        #expect(lines[2].hasPrefix("▸1!External Temperature"))
        #expect(lines[3].hasPrefix(" 2!Humidity"))
        #expect(lines[4].hasPrefix("   Front door"))
    }

    @Test func theCompareLegendShowsTheBang() {
        var model = Self.marked()
        _ = model.update(.keyPressed(.character("c")))
        _ = model.update(.compareLoaded([Fixture.detail(Fixture.temperature, range: .day),
                                         Fixture.detail(Fixture.humidity, range: .day)]))
        let grid = AppView.render(model)
        let lines = grid.text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[21] == "1 ⠒⠒⠒⠒ !External Temperature  25 °C  10–25 °C")
        #expect(lines[22] == "2 ⠒⠀⠒⠀ Humidity  42 %  40–44 %")
        #expect(grid[7, 21].style == CellStyle(bold: true, role: .error))
    }
}
