import Testing
import SenseiModels
@testable import SenseiTUI

/// The detail screen as text, braille chart included.
@Suite struct DetailViewSnapshotTests {
    func screen(_ model: AppModel) -> String { AppView.render(model).text }

    /// A day of a rising temperature: chart, hint, statistics, information and table.
    @Test func detail80x24() {
        let model = Fixture.detailModel()
        // snapshot: detail80x24
        #expect(screen(model) == """
         External Temperature                                            25 °C · 3m ago
         1 hour  2 day  3 week  4 month  5 year  6 all
        25┤                                                                      ⣀⣀⠤⠤⠒⠒⠋
          │                                                              ⣀⣀⡠⠴⠒⠒⠉⠉
          │                                                      ⣀⣀⠤⠤⠖⠒⠉⠉⠁
        20┤                                              ⢀⣀⡤⠤⠔⠒⠉⠉
          │                                      ⢀⣀⡤⠤⠖⠒⠋⠉⠁
          │                              ⢀⣀⡠⠤⠴⠒⠊⠉⠉
        15┤                       ⣀⣠⠤⠔⠒⠊⠉⠁
          │              ⢀⣀⣠⠤⠴⠒⠚⠉⠉
          │       ⣀⣀⠤⠤⠖⠒⠉⠉
        10┤⣠⠤⠤⠒⠒⠉⠉
          └┴────────┴─────────┴────────┴─────────┴─────────┴────────┴─────────┴────────┴
           12:00  15:00     18:00    21:00     00:00     03:00    06:00     09:00  12:00
        ←/→ cursor  1-6 range  PgUp/PgDn readings
        Count    288                            Time                 Value    1–7 of 288
        Min      10 °C  2025-01-08 12:02        2025-01-09 11:57:00  25 °C
        Max      25 °C  2025-01-09 11:57        2025-01-09 11:52:00  24.9 °C
        Mean     17.5 °C                        2025-01-09 11:47:00  24.9 °C
        Oldest   2025-01-08 12:02               2025-01-09 11:42:00  24.8 °C
        Code     temperature_ext                2025-01-09 11:37:00  24.8 °C
        Type     float, units °C                2025-01-09 11:32:00  24.7 °C
        Created  2025-01-02 10:00               2025-01-09 11:27:00  24.7 °C
        ● online · synced 12s ago         1-6 range  ←→ cursor  Esc back  ? help  q quit
        """)
    }

    /// Cursor 31 columns left of the newest, table one page down.
    @Test func detail120x40WithCursorAndScrolledTable() {
        var model = Fixture.detailModel(width: 120, height: 40)
        for _ in 0..<31 { _ = model.update(.keyPressed(.left)) }
        _ = model.update(.keyPressed(.pageDown))
        // snapshot: detail120x40
        #expect(screen(model) == """
         External Temperature                                                                                    25 °C · 3m ago
         1 hour  2 day  3 week  4 month  5 year  6 all
        26┤
          │                                                                                                                ⢀⣀⠤⠴⠒
        24┤                                                                                                          ⢀⡠⠤⠖⠒⠉⠁
          │                                                                                                    ⣀⡠⠤⠒⠚⠉⠁
          │                                                                                              ⣀⡠⠤⠒⠊⠉
        22┤                                                                                       ⢀⣀⡠⠔⠒⠉⠉
          │                                                                                 ⣀⣀⠤⠔⠒⠉⠉
        20┤                                                                           ⣀⣠⠤⠔⠒⠉⠁
          │                                                                     ⣀⡠⠤⠒⠊⠉
          │                                                               ⣀⠤⠴⠒⠊⠉
        18┤                                                       ⢀⣀⡤⠤⠒⠊⠉⠉
          │                                                 ⢀⣀⠤⠴⠒⠉⠁
        16┤                                           ⢀⣀⠤⠖⠒⠉⠁
          │                                     ⣀⡠⠤⠒⠒⠉⠁
        14┤                               ⣀⡠⠤⠒⠚⠉
          │                        ⢀⣀⡠⠔⠒⠋⠉
          │                  ⣀⣀⠤⠔⠒⠉⠉
        12┤            ⣀⣠⠤⠔⠒⠉⠁
          │      ⣀⡠⠤⠔⠊⠉
        10┤⣀⠤⠤⠒⠊⠉
          └┴────────┴─────────┴─────────┴─────────┴────────┴─────────┴─────────┴─────────┴────────┴─────────┴─────────┴────────┴
           12:00  14:00     16:00     18:00     20:00    22:00     00:00     02:00     04:00    06:00     08:00     10:00  12:00
        Jan 09 05:47:00  21.1 °C
        Count    288                            Time                 Value                                          14–26 of 288
        Min      10 °C  2025-01-08 12:02        2025-01-09 10:52:00  24.3 °C
        Max      25 °C  2025-01-09 11:57        2025-01-09 10:47:00  24.3 °C
        Mean     17.5 °C                        2025-01-09 10:42:00  24.2 °C
        Oldest   2025-01-08 12:02               2025-01-09 10:37:00  24.2 °C
        Code     temperature_ext                2025-01-09 10:32:00  24.1 °C
        Type     float, units °C                2025-01-09 10:27:00  24.1 °C
        Created  2025-01-02 10:00               2025-01-09 10:22:00  24 °C
        Interval every 5m · 12/h shown          2025-01-09 10:17:00  24 °C
                                                2025-01-09 10:12:00  23.9 °C
                                                2025-01-09 10:07:00  23.9 °C
                                                2025-01-09 10:02:00  23.8 °C
                                                2025-01-09 09:57:00  23.7 °C
                                                2025-01-09 09:52:00  23.7 °C
        ● online · synced 12s ago                              1-6 range  +/- zoom  </> pan  ←→ cursor  Esc back  ? help  q quit
        """)
    }

    /// Narrow and low: short range names, the chart and the hint only.
    @Test func detail40x12() {
        let model = Fixture.detailModel(width: 40, height: 12)
        // snapshot: detail40x12
        #expect(screen(model) == """
         External Temperature    25 °C · 3m ago
         hour  day  week  month  year  all
        25┤                               ⣀⣠⠤⠔⠒⠋
          │                         ⣀⡠⠤⠖⠚⠉⠁
        20┤                  ⢀⣀⠤⠴⠒⠋⠉
        15┤           ⢀⣀⣠⠤⠖⠒⠉⠉
          │     ⢀⣀⡤⠴⠒⠊⠉
        10┤⣠⠤⠖⠒⠋⠉
          └┴────────┴────────┴────────┴────────┴
           12:00  18:00    00:00    06:00  12:00
        ←/→ cursor  1-6 range  PgUp/PgDn readin…
        ● online · synced 12s ago
        """)
    }

    /// Tiny: a one-row chart without axes.
    @Test func detail20x5() {
        let model = Fixture.detailModel(width: 20, height: 5)
        // snapshot: detail20x5
        #expect(screen(model) == """
         External Temperatu…
         h  d  w  m  y  a
        ⣀⣀⣀⣀⡠⠤⠤⠤⠤⠤⠤⠤⠤⠖⠒⠒⠒⠒⠒⠒
        12:00   00:00  12:00
        ● online · synced 1…
        """)
    }

    /// ASCII, last hour, cursor on the newest column but one: seconds in the readout.
    @Test func asciiHourWithCursor() {
        var model = Fixture.detailModel(width: 60, height: 20, charset: .ascii)
        _ = model.update(.keyPressed(.character("h")))
        _ = model.update(.detailLoaded(Fixture.detail(Fixture.temperature, range: .hour)))
        _ = model.update(.keyPressed(.left))
        _ = model.update(.keyPressed(.left))
        // snapshot: detailASCIIHour
        #expect(screen(model) == """
         External Temperature                      25 degC | 3m ago
         1 hour  2 day  3 week  4 month  5 year  6 all
          25+                                                 .--'
            |                                         .------'
        24.8+                                ..------'
            |                             ..-'
            |                     ..-''''''
        24.6+             ..-----''
            |     .------''
        24.4+ .--'
            ++--------+--------+--------+--------+--------+--------+
             11:00  11:10    11:20    11:30    11:40    11:50  12:00
        11:57:00  25 degC
        Count    12
        Min      24.4 degC  2025-01-09 11:02
        Max      25 degC  2025-01-09 11:57
        Mean     24.7 degC
        Oldest   2025-01-09 11:02

        * online | synced 12s ago           Esc back  ? help  q quit
        """)
    }

    /// Until the cache answers.
    @Test func loading() {
        var model = Fixture.model(width: 40, height: 12)
        _ = model.update(.keyPressed(.enter))
        // snapshot: detailLoading
        #expect(screen(model) == """
         External Temperature    25 °C · 3m ago
         hour  day  week  month  year  all




                        Loading…




        ● online · synced 12s ago
        """)
    }

    /// On/off: a 0…1 axis and a step, not a slope.
    @Test func onOffSensor() {
        let model = Fixture.detailModel(width: 60, height: 20, summary: Fixture.door)
        // snapshot: detailOnOff
        #expect(screen(model) == """
         Front door                                    on · 45s ago
         1 hour  2 day  3 week  4 month  5 year  6 all
          1┤                                                       ⢸
           │                                                       ⢸
           │                                                       ⢸
           │                                                       ⢸
        0.5┤                                                       ⢸
           │                                                       ⢸
           │                                                       ⢸
          0┤                                                   ⣀⣀⣀⣀⣸
           └───────┴──────┴──────┴──────┴──────┴──────┴──────┴──────
                 15:00  18:00  21:00  00:00  03:00  06:00  09:00
        ←/→ cursor  1-6 range  PgUp/PgDn readings
        Count    2
        Min      off  2025-01-09 10:00
        Max      on  2025-01-09 11:59
        Mean     0.5
        Oldest   2025-01-09 10:00

        ● online · synced 12s ago           Esc back  ? help  q quit
        """)
    }

    /// A stale sensor with nothing in the last hour.
    @Test func emptyRangeOfAStaleSensor() {
        var model = Fixture.detailModel(width: 60, height: 20, summary: Fixture.humidity)
        _ = model.update(.keyPressed(.character("h")))
        _ = model.update(.detailLoaded(Fixture.detail(Fixture.humidity, range: .hour)))
        // snapshot: detailEmptyRange
        #expect(screen(model) == """
         Humidity                             42 % · 6h ago · stale
         1 hour  2 day  3 week  4 month  5 year  6 all
        │
        │
        │
        │
        │                 no readings in this range
        │
        │
        │
        └┴────────┴─────────┴─────────┴─────────┴─────────┴────────┴
         11:00  11:10     11:20     11:30     11:40     11:50  12:00
        ←/→ cursor  1-6 range  PgUp/PgDn readings
        Count    0





        ● online · synced 12s ago           Esc back  ? help  q quit
        """)
    }

    /// Narrow but tall: statistics above the table instead of beside it.
    @Test func narrowAndTallStacksStatisticsAndTable() {
        let model = Fixture.detailModel(width: 60, height: 30)
        // snapshot: detail60x30
        #expect(screen(model) == """
         External Temperature                        25 °C · 3m ago
         1 hour  2 day  3 week  4 month  5 year  6 all
        25┤                                                     ⣀⡠⠖⠋
          │                                                 ⣀⡤⠔⠋⠁
          │                                             ⣀⠤⠖⠉
          │                                        ⢀⣀⠤⠞⠉
        20┤                                    ⢀⣠⠤⠒⠉
          │                                ⢀⣠⠴⠚⠁
          │                            ⢀⡠⠴⠚⠁
          │                        ⢀⡤⠖⠊⠉
          │                    ⣀⡤⠖⠋⠁
        15┤                ⣀⡤⠒⠋⠁
          │            ⣀⡴⠒⠉⠁
          │       ⢀⣠⠴⠚⠉
          │   ⢀⣠⠤⠚⠉
        10┤⡠⠴⠊⠉
          └───────┴──────┴──────┴──────┴──────┴──────┴──────┴───────
                15:00  18:00  21:00  00:00  03:00  06:00  09:00
        ←/→ cursor  1-6 range  PgUp/PgDn readings
        Count    288
        Min      10 °C  2025-01-08 12:02
        Max      25 °C  2025-01-09 11:57
        Mean     17.5 °C
        Oldest   2025-01-08 12:02
        Time                 Value                        1–4 of 288
        2025-01-09 11:57:00  25 °C
        2025-01-09 11:52:00  24.9 °C
        2025-01-09 11:47:00  24.9 °C
        2025-01-09 11:42:00  24.8 °C
        ● online · synced 12s ago           Esc back  ? help  q quit
        """)
    }
}
