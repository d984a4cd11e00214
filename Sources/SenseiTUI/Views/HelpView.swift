/// The keys, grouped, as `?` shows them. Groups flow into a second column
/// when the screen is too low for one and wide enough for two.
public enum HelpView {
    typealias Section = (title: String, keys: [(key: String, meaning: String)])

    static func sections(_ g: Glyphs) -> [Section] {
        [
            ("Sensor list", [
                ("\(g.arrowUp)/\(g.arrowDown)  k/j", "move the selection"),
                ("K/J  shift-\(g.arrowUp)/\(g.arrowDown)", "move the sensor up or down"),
                ("Home/End  G", "first, last sensor"),
                ("Enter", "open the sensor"),
                ("/", "filter; Enter keeps, Esc clears"),
                ("g", "group by a label, best first"),
                ("a", "alert rules, live (! = firing)"),
                ("space  c", "mark 2-4 sensors, compare them"),
            ]),
            ("Sensor detail", [
                ("1-6  h/d/w/m/y/a", "hour, day, week, month, year, all"),
                ("\(g.arrowLeft)/\(g.arrowRight)  Home/End", "move the chart cursor"),
                ("+/-  </>  0", "zoom, pan, back to the range"),
                ("\(g.arrowUp)/\(g.arrowDown)  PgUp/PgDn", "scroll the readings"),
                ("Esc  Backspace", "hide the cursor, then back"),
            ]),
            ("Anywhere", [
                ("r", "refresh now"),
                ("?", "this help"),
                ("q", "quit"),
            ]),
        ]
    }

    public static func render(_ model: AppModel, into grid: inout CellGrid, area: Rect) {
        guard !area.isEmpty else { return }
        grid.fill(area)
        TitleBar.render(left: "Keys", right: "", into: &grid, area: area, charset: model.charset)
        let body = area.splitTop(1).rest.inset(left: 1)
        let sections = self.sections(model.charset.glyphs)
        let keys = sections.flatMap(\.keys)
        let keyWidth = keys.map(\.key.count).max()! + 4
        let columnWidth = keyWidth + keys.map(\.meaning.count).max()! + 4
        let total = sections.reduce(0) { $0 + 1 + $1.keys.count } + sections.count - 1
        let columns = total > body.height ? max(1, min(sections.count, body.width / columnWidth)) : 1
        var column = 0, y = 0
        for (index, section) in sections.enumerated() {
            if y > 0 && y + 1 + section.keys.count > body.height && column + 1 < columns {
                column += 1
                y = 0
            } else if index > 0 && y > 0 && total <= body.height {
                y += 1  // a blank line between groups when everything fits with them
            }
            let x = body.x + column * columnWidth
            let width = columns == 1 ? body.width : min(columnWidth, body.right - x)
            func row(_ y: Int) -> Rect { Rect(x: x, y: body.y + y, width: width, height: y < body.height ? 1 : 0) }
            grid.write(section.title, in: row(y), style: CellStyle(bold: true, role: .accent))
            y += 1
            for (key, meaning) in section.keys {
                let (keyRect, meaningRect) = row(y).splitLeft(keyWidth)
                grid.write("  " + key, in: keyRect, style: CellStyle(bold: true))
                grid.write(meaning, in: meaningRect, ellipsis: model.charset.glyphs.ellipsis)
                y += 1
            }
        }
    }
}
