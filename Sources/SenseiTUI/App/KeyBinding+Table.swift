/// Every key the dashboard acts on, once. The `?` help shows the rows in
/// table order (one row shared by several bindings shows once), and the
/// status bar its hints in table order too.
extension KeyBinding {
    static let all: [KeyBinding] = list + prompt + charts + screens + anywhere

    static let list: [KeyBinding] = [
        KeyBinding([.list], help: KeyHelp(.list, "↑/↓  k/j", "move the selection"),
                   [[.up, "k"]: .moveSelection(-1), [.down, "j"]: .moveSelection(1),
                    [.pageUp]: .pageSelection(-1), [.pageDown]: .pageSelection(1)]),
        KeyBinding([.list], help: KeyHelp(.list, "K/J  shift-↑/↓", "move the sensor up or down"),
                   [["K", .shiftUp]: .moveSensor(-1), ["J", .shiftDown]: .moveSensor(1)]),
        KeyBinding([.list], help: KeyHelp(.list, "Home/End  G", "first, last sensor"),
                   [[.home]: .selectFirst, [.end, "G"]: .selectLast]),
        KeyBinding([.list], help: KeyHelp(.list, "Enter", "open the sensor"), hint: KeyHint("⏎ open", [.list: 1]),
                   [[.enter, .right, "l"]: .open]),
        KeyBinding([.list], help: KeyHelp(.list, "/", "filter; Enter keeps, Esc clears"),
                   hint: KeyHint("/ filter", [.list: 1]), [["/"]: .startFilter, [.escape]: .clearFilter]),
        KeyBinding([.list], help: KeyHelp(.list, "g", "group by a label, best first"),
                   hint: KeyHint({ StatusBar.groupHint($0) }, [.list: 2]), [["g"]: .cycleGrouping]),
        KeyBinding([.list], help: KeyHelp(.list, "a", "alert rules, live (! = firing)"),
                   hint: KeyHint("a alerts", [.list: 2]), [["a"]: .openAlerts]),
        KeyBinding([.list], help: .markAndCompare, hint: KeyHint("space mark", [.list: 3]), [[" "]: .toggleMark]),
        KeyBinding([.list], help: .markAndCompare, hint: KeyHint("c compare", [.list: 3]), [["c"]: .openCompare]),
    ]

    /// While the `/` prompt is open every printable key is text (`q` too).
    static let prompt: [KeyBinding] = [
        KeyBinding([.filterPrompt], hint: KeyHint("Enter keep  Esc clear", [.filterPrompt: 0]),
                   otherCharacters: .typeFilter,
                   [[.enter]: .keepFilter, [.escape]: .clearFilter, [.backspace]: .deleteFilterCharacter,
                    [.up]: .moveSelection(-1), [.down]: .moveSelection(1)]),
    ]

    /// The detail's keys; the range and zoom keys work in the compare chart too.
    static let charts: [KeyBinding] = [
        KeyBinding([.detail, .compare], help: KeyHelp(.detail, "1-6  h/d/w/m/y/a", "hour, day, week, month, year, all"),
                   hint: KeyHint("1-6 range", [.detail: 2, .compare: 1]),
                   [["1", "h"]: .showRange(.hour), ["2", "d"]: .showRange(.day), ["3", "w"]: .showRange(.week),
                    ["4", "m"]: .showRange(.month), ["5", "y"]: .showRange(.year), ["6", "a"]: .showRange(.all)]),
        // The cursor's row comes before zoom's in the help, its hint after pan's in the bar.
        KeyBinding([.detail], help: .chartCursor, [[.home]: .cursorToStart, [.end]: .cursorToEnd]),
        KeyBinding([.detail, .compare], help: .zoomAndPan, hint: KeyHint("+/- zoom", [.detail: 3, .compare: 1]),
                   [["+", "="]: .zoomIn, ["-"]: .zoomOut]),
        KeyBinding([.detail, .compare], help: .zoomAndPan, hint: KeyHint("</> pan", [.detail: 4, .compare: 2]),
                   [["<"]: .pan(-1), [">"]: .pan(1)]),
        KeyBinding([.detail, .compare], help: .zoomAndPan, hint: KeyHint("0 reset", [.compare: 2]),
                   [["0"]: .resetZoom]),
        KeyBinding([.detail], help: .chartCursor, hint: KeyHint("←→ cursor", [.detail: 2]),
                   [[.left]: .moveCursor(-1), [.right]: .moveCursor(1)]),
        KeyBinding([.detail], help: KeyHelp(.detail, "u", "usage bars (counters, W sensors)"),
                   hint: KeyHint({ StatusBar.usageHint($0) }, [.detail: 1]), [["u"]: .toggleUsage]),
        KeyBinding([.detail], help: KeyHelp(.detail, "↑/↓  PgUp/PgDn", "scroll the readings"),
                   [[.up, "k"]: .scrollReadings(-1), [.down, "j"]: .scrollReadings(1),
                    [.pageUp]: .pageReadings(-1), [.pageDown]: .pageReadings(1)]),
        KeyBinding([.detail], help: KeyHelp(.detail, "Esc  Backspace", "hide the cursor, then back"),
                   hint: KeyHint("Esc back", [.detail: 1]), [[.escape, .backspace]: .back]),
    ]

    /// Screens the help does not list: their hints tell of their keys.
    static let screens: [KeyBinding] = [
        KeyBinding([.compare], hint: KeyHint("Esc back", [.compare: 0]), [[.escape, .backspace, "c"]: .back]),
        KeyBinding([.alerts], hint: KeyHint("↑↓ scroll", [.alerts: 1]),
                   [[.up, "k"]: .scrollAlerts(-1), [.down, "j"]: .scrollAlerts(1),
                    [.pageUp]: .pageAlerts(-1), [.pageDown]: .pageAlerts(1)]),
        KeyBinding([.alerts], hint: KeyHint("Esc back", [.alerts: 0]), [[.escape, .backspace, "a"]: .back]),
        KeyBinding([.help], hint: KeyHint("Esc back", [.help: 0]), [["?", .escape, .backspace, .enter]: .back]),
    ]

    static let anywhere: [KeyBinding] = [
        KeyBinding([.list, .detail, .compare, .alerts, .help], help: KeyHelp(.anywhere, "r", "refresh now"),
                   hint: KeyHint("r refresh", [.emptyList: 1, .alerts: 1]), [["r"]: .refresh]),
        KeyBinding([.list, .detail, .compare, .alerts], help: KeyHelp(.anywhere, "?", "this help"),
                   hint: KeyHint("? help", [.list: 0, .emptyList: 0, .detail: 0, .compare: 2]), [["?"]: .showHelp]),
        KeyBinding([.list, .detail, .compare, .alerts, .help], help: KeyHelp(.anywhere, "q", "quit"),
                   hint: KeyHint("q quit", [.list: 0, .emptyList: 0, .detail: 0, .compare: 0, .alerts: 0, .help: 0]),
                   [["q"]: .quit]),
    ]
}

extension KeyHelp {
    static let markAndCompare = KeyHelp(.list, "space  c", "mark 2-4 sensors, compare them")
    static let chartCursor = KeyHelp(.detail, "←/→  Home/End", "move the chart cursor")
    static let zoomAndPan = KeyHelp(.detail, "+/-  </>  0", "zoom, pan, back to the range")
}
