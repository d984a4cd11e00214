import SenseiModels

/// The sensor list: one row per sensor in the user's order with name, latest
/// value and units, age, a 24-hour sparkline and a stale mark. Columns give
/// way as the terminal narrows: first the sparkline, then the stale word
/// (a `!` beside the name stays), then the age. A sensor with a firing alert
/// is marked `!` beside the name, in the error colour where there is colour.
/// The row starts with three one-cell marks: the selection, the sensor's
/// number on the compare chart (space), and the `!`: each its own cell, so a
/// marked sensor's firing alert still shows (issue 38).
/// The filter (`/`) and grouping (`g`) come from `AppModel.listLayout`:
/// grouped, each group starts with a header row naming the label's value.
public enum ListView {
    /// Sensor rows that fit in the content area.
    public static func visibleRowCount(in content: Rect) -> Int {
        max(0, content.height - 1 - (hasHeader(content) ? 1 : 0))
    }

    static func hasHeader(_ content: Rect) -> Bool { content.height >= 7 }

    /// Column widths for one frame. Gaps of two cells sit between columns.
    struct Columns: Equatable {
        var name: Int
        var value: Int
        var age: Int
        var sparkline: Int
        var stale: Int

        /// Selection, compare number, `!`.
        static let marker = 3
        static let gap = 2
        static let ageWidth = 8

        init(width: Int, longestName: Int, widestValue: Int) {
            value = min(max(5, widestValue), 14)
            age = Self.ageWidth
            stale = width >= 60 ? 5 : 0
            sparkline = 0
            let fixed = Self.marker + Self.gap + value + Self.gap + age + (stale > 0 ? Self.gap + stale : 0)
            let wantedName = min(max(8, longestName), 32)
            let room = width - fixed
            if width >= 60 && room - wantedName - Self.gap >= 8 {
                // Spare width beyond a 48-cell sparkline stays at the row's end,
                // so values sit close to their names.
                sparkline = min(48, room - wantedName - Self.gap)
                name = wantedName
            } else {
                name = room
            }
            if name < 6 {
                // Too narrow for the age: name and value only.
                age = 0
                name = width - Self.marker - Self.gap - value
            }
            if name < 4 {
                value = max(0, width - Self.marker - Self.gap - 4)
                name = width - Self.marker - (value > 0 ? Self.gap + value : 0)
            }
        }
    }

    public static func render(_ model: AppModel, into grid: inout CellGrid, area: Rect) {
        guard !area.isEmpty else { return }
        grid.fill(area)
        let charset = model.charset
        let glyphs = charset.glyphs
        let server = model.serverName.map { glyphs.separator + charset.displayable($0) } ?? ""
        let layout = model.listLayout
        TitleBar.render(left: "Sensei" + server, right: titleNote(model, layout: layout), into: &grid, area: area,
                        charset: charset)

        var body = area.splitTop(1).rest
        // Widths from the layout (made once per change of the list), text for
        // the rows on screen only: a frame costs the same at 10,000 sensors.
        let columns = Columns(width: area.width, longestName: model.listWidths.name, widestValue: model.listWidths.value)
        if hasHeader(area) {
            let header = body.row(0)
            let style = CellStyle(bold: true, dim: true)
            Row(area: header, columns: columns, ellipsis: glyphs.ellipsis)
                .put("Name", "Value", columns.age > 0 ? "Updated" : "", columns.sparkline >= 9 ? "Last 24 h" : "24 h", "",
                     into: &grid, style: style)
            body = body.splitTop(1).rest
        }
        let visible = visibleRowCount(in: area)
        let end = min(layout.rows.count, model.listTop + visible)
        guard model.listTop < end else { return }
        let selectedIndex = layout.order.indices.contains(model.selection) ? layout.order[model.selection] : nil
        let firing = model.firingSensors
        for rowIndex in model.listTop..<end {
            let rect = body.row(rowIndex - model.listTop)
            guard case .sensor(let index) = layout.rows[rowIndex] else {
                if case .header(let value, let count) = layout.rows[rowIndex] {
                    renderHeader(value: value, count: count, key: model.grouping ?? "", into: &grid, row: rect, charset: charset)
                }
                continue
            }
            let summary = model.sensors[index]
            let recent = model.recent(of: summary)
            let stale = summary.isStale(now: model.now, usualInterval: recent.usualInterval)
            let selected = index == selectedIndex
            grid.set(selected ? glyphs.selection : " ", x: rect.x, y: rect.y, style: CellStyle(bold: true))
            if let mark = model.marked.firstIndex(of: summary.id) {
                // Its line's number on the compare chart, in its colour.
                grid.set(Character(String(mark + 1)), x: rect.x + 1, y: rect.y,
                         style: CellStyle(bold: true, role: ChartLine.styles[mark].role))
            }
            if firing.contains(summary.sensor.code) {
                grid.set("!", x: rect.x + 2, y: rect.y, style: CellStyle(bold: true, role: .error))
            } else if stale && columns.stale == 0 {
                grid.set("!", x: rect.x + 2, y: rect.y, style: CellStyle(bold: true, role: .stale))
            }
            let age = summary.sensor.latest.map { Format.age(of: $0.timestamp, now: model.now) } ?? "never"
            let row = Row(area: rect, columns: columns, ellipsis: glyphs.ellipsis)
            row.put(charset.displayable(summary.sensor.name), valueText(summary, charset: charset), age, "", stale ? "stale" : "", into: &grid, style: .plain,
                    nameStyle: CellStyle(bold: true), ageStyle: stale ? CellStyle(role: .stale) : CellStyle(dim: true),
                    staleStyle: CellStyle(bold: true, role: .stale))
            if columns.sparkline > 0 {
                let start = model.now.milliseconds - 86_400_000
                let sparkline = Sparkline(series: recent.series, start: start, end: model.now.milliseconds,
                                          charset: charset, maxGap: recent.usualInterval.map { 3 * $0 },
                                          stepped: summary.sensor.valueType == .bool)
                sparkline.render(into: &grid, area: Rect(x: row.sparklineX, y: rect.y, width: columns.sparkline, height: 1),
                                 style: CellStyle(role: stale ? .stale : .accent))
            }
            if selected { grid.restyle(rect) { $0.reverse = true } }
        }
    }

    /// "12 sensors"; filtered, "3 of 12 sensors"; grouped, "by room" after it.
    static func titleNote(_ model: AppModel, layout: ListLayout) -> String {
        let total = model.sensors.count
        var note = total == 1 ? "1 sensor" : "\(total) sensors"
        if layout.order.count != total { note = "\(layout.order.count) of " + note }
        if let key = model.grouping { note += model.charset.glyphs.separator + "by " + model.charset.displayable(key) }
        return note
    }

    /// `── room: kitchen (3) ────`: the group's label value and size.
    static func renderHeader(value: String?, count: Int, key: String, into grid: inout CellGrid, row: Rect,
                             charset: Charset) {
        let rule = charset.glyphs.horizontal
        let name = value.map { "\(key): \(charset.displayable($0))" } ?? "no \(key)"
        let text = "\(rule)\(rule) \(name) (\(count)) "
        let x = grid.write(text, x: row.x, y: row.y, style: CellStyle(bold: true, role: .accent), clip: row)
        if x < row.right {
            grid.write(String(repeating: rule, count: row.right - x), x: x, y: row.y, style: CellStyle(dim: true), clip: row)
        }
    }

    /// "23.5 °C", "on", or a dash for a sensor without readings.
    static func valueText(_ summary: SensorSummary, charset: Charset) -> String {
        guard let latest = summary.sensor.latest else { return charset == .ascii ? "-" : "—" }
        return charset.displayable(Format.value(latest.value, type: summary.sensor.valueType,
                                                units: summary.sensor.units))
    }

    /// Writes one row's cells into its columns.
    private struct Row {
        let area: Rect
        let columns: Columns
        let ellipsis: String

        var nameX: Int { area.x + Columns.marker }
        var valueX: Int { nameX + columns.name + Columns.gap }
        var ageX: Int { valueX + columns.value + Columns.gap }
        var sparklineX: Int { ageX + columns.age + Columns.gap }
        var staleX: Int { sparklineX + (columns.sparkline > 0 ? columns.sparkline + Columns.gap : 0) }

        func put(_ name: String, _ value: String, _ age: String, _ sparkline: String, _ stale: String,
                 into grid: inout CellGrid, style: CellStyle, nameStyle: CellStyle? = nil, ageStyle: CellStyle? = nil,
                          staleStyle: CellStyle? = nil) {
            cell(name, x: nameX, width: columns.name, alignment: .left, style: nameStyle ?? style, into: &grid)
            cell(value, x: valueX, width: columns.value, alignment: .right, style: style, into: &grid)
            if columns.age > 0 {
                cell(age, x: ageX, width: columns.age, alignment: .right, style: ageStyle ?? style, into: &grid)
            }
            if columns.sparkline > 0 {
                cell(sparkline, x: sparklineX, width: columns.sparkline, alignment: .left, style: style, into: &grid)
            }
            if columns.stale > 0 {
                cell(stale, x: staleX, width: columns.stale, alignment: .left, style: staleStyle ?? style, into: &grid)
            }
        }

        private func cell(_ text: String, x: Int, width: Int, alignment: CellGrid.Alignment, style: CellStyle,
                          into grid: inout CellGrid) {
            guard width > 0, !text.isEmpty else { return }
            grid.write(text, in: Rect(x: x, y: area.y, width: width, height: 1).intersection(area),
                       alignment: alignment, style: style, ellipsis: ellipsis)
        }
    }
}
