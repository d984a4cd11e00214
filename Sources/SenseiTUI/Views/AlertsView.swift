import SenseiModels

/// `a`: the server's alert rules, firing first: state, name, sensor, the
/// condition (`above 30`, `usage_above 30 kWh/day`), since when (and how long
/// ago), the reading (or usage) that moved the rule. Firing rows are
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
        let header = ["State", "Name", "Sensor", "Condition", "Since", "Value"]
        // When narrow, the date shortens first (today's time alone, an older
        // one as "Jan 09 11:57").
        func cells(shortDates: Bool) -> [[String]] {
            TextReport.ordered(model.alerts).map { alert in
                let offset = model.utcOffsetSeconds
                let today = Format.date(alert.since, utcOffsetSeconds: offset) == Format.date(model.now, utcOffsetSeconds: offset)
                let since = !shortDates ? Format.dateTime(alert.since, utcOffsetSeconds: offset, seconds: false)
                    : today ? Format.time(alert.since, utcOffsetSeconds: offset, seconds: false)
                    : Format.monthDayTime(alert.since, utcOffsetSeconds: offset, seconds: false)
                return [alert.state.rawValue, charset.displayable(alert.name), charset.displayable(alert.sensor),
                        charset.displayable(TextReport.condition(alert)),
                        since + " (" + Format.age(of: alert.since, now: model.now) + ")",
                        charset.displayable(TextReport.value(alert))]
            }
        }
        func columnWidths(_ rows: [[String]]) -> [Int] {
            header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        }
        let gaps = 2 * (header.count - 1) + 1
        var rows = cells(shortDates: false)
        var widths = columnWidths(rows)
        if widths.reduce(0, +) + gaps > body.width {
            rows = cells(shortDates: true)
            widths = columnWidths(rows)
        }
        // Then name, sensor and since give way in turn, the condition and the value last.
        var overflow = widths.reduce(0, +) + gaps - body.width
        for (column, minimum) in [(1, 10), (2, 10), (4, 14), (1, 4), (3, 10)] where overflow > 0 {
            let cut = min(overflow, max(0, widths[column] - minimum))
            widths[column] -= cut
            overflow -= cut
        }
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
