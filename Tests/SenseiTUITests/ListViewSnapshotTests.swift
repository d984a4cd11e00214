import Testing
import SenseiModels
@testable import SenseiTUI

/// The list screen as text at several sizes (`Fixture.now` is 2025-01-09 12:00 UTC).
@Suite struct ListViewSnapshotTests {
    func screen(_ model: AppModel) -> String { AppView.render(model).text }

    /// Four sensors: the stale one marked, the one without readings dashed.
    @Test func list80x24() {
        let model = Fixture.model(sensors: Fixture.summaries + [Fixture.empty])
        // snapshot: list80x24
        #expect(screen(model) == """
         Sensei · sensei.lan:3000                                             4 sensors
           Name                  Value   Updated  Last 24 h
        ▸  External Temperature  25 °C    3m ago  ▁▁▁▂▂▂▂▃▃▃▃▃▄▄▄▅▅▅▅▆▆▆▆▆▇▇▇▇███
           Humidity               42 %    6h ago  ▁▃▅▆▇█▁▃▄▅▆█▁▂▃▅▆▇█▁▃▅▅▆         stale
           Front door               on   45s ago                              ▁▁█
           New probe                 —     never

















        ● online · synced 12s ago    ⏎ open  / filter  g group  a alerts  ? help  q quit
        """)
    }

    /// Wide: the sparkline stops at 48 cells and the spare width stays at the end.
    @Test func list120x40() {
        let model = Fixture.model(width: 120, height: 40)
        // snapshot: list120x40
        #expect(screen(model) == """
         Sensei · sensei.lan:3000                                                                                     3 sensors
           Name                  Value   Updated  Last 24 h
        ▸  External Temperature  25 °C    3m ago  ▁▁▁▁▂▂▂▂▂▂▂▃▃▃▃▃▃▃▄▄▄▄▄▄▅▅▅▅▅▅▆▆▆▆▆▆▆▇▇▇▇▇▇▇████
           Humidity               42 %    6h ago  ▁▂▃▄▅▅▆▇█▅▁▂▃▄▅▅▆▇█▅▁▂▃▄▅▅▆▇█▅▁▂▃▄▅▅▆             stale
           Front door               on   45s ago                                              ▁▁▁█


































        ● online · synced 12s ago                     ⏎ open  / filter  g group  a alerts  space mark  c compare  ? help  q quit
        """)
    }

    /// No room for sparklines or the stale word: a `!` beside the name.
    @Test func list40x12() {
        let model = Fixture.model(width: 40, height: 12, sensors: Fixture.summaries + [Fixture.empty])
        // snapshot: list40x12
        #expect(screen(model) == """
         Sensei · sensei.lan:3000     4 sensors
           Name                  Value   Updated
        ▸  External Temperature  25 °C    3m ago
          !Humidity               42 %    6h ago
           Front door               on   45s ago
           New probe                 —     never





        ● online · synced 12s ago
        """)
    }

    /// Tiny: names and values, no header.
    @Test func list20x5() {
        let model = Fixture.model(width: 20, height: 5, sensors: Fixture.summaries + [Fixture.empty])
        // snapshot: list20x5
        #expect(screen(model) == """
         Sensei · sensei.la…
        ▸  External …  25 °C
          !Humidity     42 %
           Front door     on
        ● online · synced 1…
        """)
    }

    /// ASCII fallback: units spelled out, `_.-=^` levels, `>` for the selection.
    @Test func asciiFallback() {
        let model = Fixture.model(width: 60, height: 8, sensors: Fixture.summaries + [Fixture.empty], charset: .ascii)
        // snapshot: listASCII
        #expect(screen(model) == """
         Sensei | sensei.lan:3000                         4 sensors
           Name                    Value   Updated  Last 24 h
        >  External Temperature  25 degC    3m ago  __..-==^^
           Humidity                 42 %    6h ago  _^.^=^=    stale
           Front door                 on   45s ago          -
           New probe                   -     never

        * online | synced 12s ago                     ? help  q quit
        """)
    }

    /// The list scrolls to keep the selection (the last of twelve) in view.
    @Test func scrolledToTheSelection() {
        var model = Fixture.model(width: 40, height: 8, sensors: (1...12).map {
            SensorSummary(sensor: Fixture.sensor(id: Int64($0), code: "s\($0)", name: "Sensor \($0)"))
        })
        _ = model.update(.keyPressed(.end))
        // snapshot: listScrolled
        #expect(screen(model) == """
         Sensei · sensei.lan:3000    12 sensors
           Name                  Value   Updated
           Sensor 8                  —     never
           Sensor 9                  —     never
           Sensor 10                 —     never
           Sensor 11                 —     never
        ▸  Sensor 12                 —     never
        ● online · synced 12s ago
        """)
    }

    /// Offline: the cache stays on screen and the status bar says since when.
    @Test func offlineShowsTheCache() {
        var model = Fixture.model()
        _ = model.update(.keyPressed(.character("r")))
        _ = model.update(.syncFailed(.unreachable("connection refused"), at: Fixture.time("2025-01-09T11:58:00Z")))
        // snapshot: offlineList
        #expect(screen(model) == """
         Sensei · sensei.lan:3000                                             3 sensors
           Name                  Value   Updated  Last 24 h
        ▸  External Temperature  25 °C    3m ago  ▁▁▁▂▂▂▂▃▃▃▃▃▄▄▄▅▅▅▅▆▆▆▆▆▇▇▇▇███
           Humidity               42 %    6h ago  ▁▃▅▆▇█▁▃▄▅▆█▁▂▃▅▆▇█▁▃▅▅▆         stale
           Front door               on   45s ago                              ▁▁█


















        offline since 11:58 · synced 12s ago            ⏎ open  / filter  ? help  q quit
        """)
    }


}
