import Testing
import SenseiModels
@testable import SenseiTUI

/// The key help at several sizes.
@Suite struct HelpViewTests {
    func screen(_ model: AppModel) -> String { AppView.render(model).text }

    /// Everything fits, with blank lines between the groups.
    @Test func help80x24() {
        var model = Fixture.model()
        _ = model.update(.keyPressed(.character("?")))
        // snapshot: help80x24
        #expect(screen(model) == """
         Keys
         Sensor list
           ↑/↓  k/j          move the selection
           K/J  shift-↑/↓    move the sensor up or down
           Home/End  G       first, last sensor
           Enter             open the sensor
           /                 filter; Enter keeps, Esc clears
           g                 group by a label, best first
           a                 alert rules, live (! = firing)
           space  c          mark 2-4 sensors, compare them

         Sensor detail
           1-6  h/d/w/m/y/a  hour, day, week, month, year, all
           ←/→  Home/End     move the chart cursor
           +/-  </>  0       zoom, pan, back to the range
           u                 usage bars (counters, W sensors)
           ↑/↓  PgUp/PgDn    scroll the readings
           Esc  Backspace    hide the cursor, then back

         Anywhere
           r                 refresh now
           ?                 this help
           q                 quit
        ● online · synced 12s ago                                       Esc back  q quit
        """)
    }

    /// Low but wide: the groups flow into a second column.
    @Test func help120x13InTwoColumns() {
        var model = Fixture.model(width: 120, height: 13)
        _ = model.update(.keyPressed(.character("?")))
        // snapshot: help120x12
        #expect(screen(model) == """
         Keys
         Sensor list                                              Sensor detail
           ↑/↓  k/j          move the selection                     1-6  h/d/w/m/y/a  hour, day, week, month, year, all
           K/J  shift-↑/↓    move the sensor up or down             ←/→  Home/End     move the chart cursor
           Home/End  G       first, last sensor                     +/-  </>  0       zoom, pan, back to the range
           Enter             open the sensor                        u                 usage bars (counters, W sensors)
           /                 filter; Enter keeps, Esc clears        ↑/↓  PgUp/PgDn    scroll the readings
           g                 group by a label, best first           Esc  Backspace    hide the cursor, then back
           a                 alert rules, live (! = firing)       Anywhere
           space  c          mark 2-4 sensors, compare them         r                 refresh now
                                                                    ?                 this help
                                                                    q                 quit
        ● online · synced 12s ago                                                                               Esc back  q quit
        """)
    }

    /// Narrow: meanings cut with an ellipsis, the rest cut off.
    @Test func help40x12() {
        var model = Fixture.model(width: 40, height: 12)
        _ = model.update(.keyPressed(.character("?")))
        // snapshot: help40x12
        #expect(screen(model) == """
         Keys
         Sensor list
           ↑/↓  k/j          move the selection
           K/J  shift-↑/↓    move the sensor up…
           Home/End  G       first, last sensor
           Enter             open the sensor
           /                 filter; Enter keep…
           g                 group by a label, …
           a                 alert rules, live …
           space  c          mark 2-4 sensors, …
         Sensor detail
        ● online · synced 12s ago
        """)
    }

    /// Tiny.
    @Test func help20x5() {
        var model = Fixture.model(width: 20, height: 5)
        _ = model.update(.keyPressed(.character("?")))
        // snapshot: help20x5
        #expect(screen(model) == """
         Keys
         Sensor list
           ↑/↓  k/j
           K/J  shift-↑/↓
        ● online · synced 1…
        """)
    }


}
