import SenseiModels

/// `a`: the server's alert rules, firing first: state, name, sensor, since
/// when (and how long ago), the reading that moved the rule. Firing rows are
/// bold in the error colour, pending ones in the warning colour; without
/// colours the state word says it.
public enum AlertsView {
    /// Rule rows that fit below the title and the column header.
    public static func visibleRowCount(in content: Rect) -> Int {
        max(0, content.height - 2)
    }

    public static func render(_ model: AppModel, into grid: inout CellGrid, area: Rect) {
        guard !area.isEmpty else { return }
        grid.fill(area)
        let charset = model.charset
        let firing = model.alerts.filter { $0.state == .firing }.count
        TitleBar.render(left: "Alerts", right: firing == 0 ? "none firing" : "\(firing) firing", into: &grid,
                        area: area, charset: charset)
        let body = area.splitTop(1).rest
        guard !body.isEmpty else { return }
        guard !model.alerts.isEmpty else {
            grid.write("No alert rules on this server.", in: body.row(0).inset(left: 1), style: CellStyle(dim: true),
                       ellipsis: charset.glyphs.ellipsis)
            return
        }
        let rows = TextReport.ordered(model.alerts).map { alert in
            [alert.state.rawValue, charset.displayable(alert.name), charset.displayable(alert.sensor),
             Format.dateTime(alert.since, utcOffsetSeconds: model.utcOffsetSeconds, seconds: false)
                + " (" + Format.age(of: alert.since, now: model.now) + ")",
             alert.value.map { Format.value($0, type: .float) } ?? "-"]
        }
        let header = ["State", "Name", "Sensor", "Since", "Value"]
        // Widths from the content; the name gives way first when narrow.
        var widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        let gaps = 2 * (widths.count - 1) + 1
        let overflow = widths.reduce(0, +) + gaps - body.width
        if overflow > 0 { widths[1] = max(4, widths[1] - overflow) }
        func put(_ cells: [String], y: Int, style: (Int) -> CellStyle) {
            var x = body.x + 1
            for (column, text) in cells.enumerated() where x < body.right {
                let width = column == cells.count - 1 ? body.right - x : min(widths[column], body.right - x)
                grid.write(text, in: Rect(x: x, y: body.y + y, width: width, height: 1), style: style(column),
                           ellipsis: charset.glyphs.ellipsis)
                x += widths[column] + 2
            }
        }
        put(header, y: 0) { _ in CellStyle(bold: true, dim: true) }
        let visible = visibleRowCount(in: area)
        let ordered = TextReport.ordered(model.alerts)
        for (offset, index) in (model.alertsTop..<min(rows.count, model.alertsTop + visible)).enumerated() {
            let state = ordered[index].state
            put(rows[index], y: 1 + offset) { column in
                switch (state, column) {
                case (.firing, 0): CellStyle(bold: true, role: .error)
                case (.pending, 0): CellStyle(bold: true, role: .warning)
                case (_, 1): CellStyle(bold: true)
                default: .plain
                }
            }
        }
    }
}
