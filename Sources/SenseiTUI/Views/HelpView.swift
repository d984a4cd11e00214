/// The keys, grouped, as `?` shows them: the key table's help rows. Groups
/// flow into a second column when the screen is too low for one and wide
/// enough for two.
public enum HelpView {
    typealias Section = (title: String, keys: [(key: String, meaning: String)])

    /// The help rows of the key table (`KeyBinding.all`), by section, in
    /// table order; a row several bindings share shows once.
    static func sections(_ g: Glyphs) -> [Section] {
        var seen = Set<KeyHelp>()
        let rows = KeyBinding.all.compactMap(\.help).filter { seen.insert($0).inserted }
        return HelpSection.allCases.map { section in
            (section.rawValue, rows.filter { $0.section == section }.map { (g.keyLabel($0.label), $0.meaning) })
        }
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
