import SenseiModels

/// `c`: the marked sensors (2 to 4) on one chart over one window, with a
/// legend naming each line. Lines differ by colour and by dash pattern
/// (`ChartLine.keeps`), and each legend row shows its line's pattern, so the
/// chart reads the same without colours.
public enum CompareView {
    public static func render(_ model: AppModel, into grid: inout CellGrid, area: Rect) {
        guard !area.isEmpty, let state = model.compare else { return }
        grid.fill(area)
        let charset = model.charset
        TitleBar.render(left: "Compare", right: "\(state.sensorIds.count) sensors", into: &grid, area: area,
                        charset: charset)
        var rest = area.splitTop(1).rest
        guard !rest.isEmpty else { return }
        DetailView.renderRanges(model, into: &grid, area: rest.row(0))
        rest = rest.splitTop(1).rest
        // The legend gives way before the chart's last three rows.
        let legendRows = min(state.sensorIds.count, max(0, rest.height - 3))
        let (chartArea, legendArea) = rest.splitBottom(legendRows)
        guard let details = state.data else {
            grid.write("Loading" + charset.glyphs.ellipsis, in: chartArea.row(chartArea.height / 2),
                       alignment: .center, style: CellStyle(dim: true))
            return
        }
        LineChart(compare: details, utcOffsetSeconds: model.utcOffsetSeconds, charset: charset)?
            .render(into: &grid, area: chartArea)
        for (index, data) in details.prefix(legendRows).enumerated() {
            renderLegend(index: index, data: data, model: model, into: &grid, row: legendArea.row(index))
        }
    }

    /// `1 ⠒⠒⠒⠒ External Temperature  25 °C  10–25 °C`: the line's number and
    /// pattern in its colour, the name, the latest value and the window's extent.
    /// A sensor whose alert is firing has the list's `!` before its name
    /// (`1 ⠒⠒⠒⠒ !Front door`): comparing it must not hide the alert.
    static func renderLegend(index: Int, data: DetailData, model: AppModel, into grid: inout CellGrid, row: Rect) {
        let charset = model.charset, glyphs = charset.glyphs
        let style = ChartLine.styles[min(index, ChartLine.styles.count - 1)]
        var x = grid.write("\(index + 1) " + ChartLine.sample(line: index, charset: charset) + " ", x: row.x, y: row.y,
                           style: CellStyle(bold: true, role: style.role), clip: row)
        let sensor = data.sensor
        if model.firingSensors.contains(sensor.code) {
            x = grid.write("!", x: x, y: row.y, style: CellStyle(bold: true, role: .error), clip: row)
        }
        var text = charset.displayable(sensor.name)
        if let latest = sensor.latest {
            text += "  " + charset.displayable(Format.value(latest.value, type: sensor.valueType, units: sensor.units))
        }
        if let stats = data.statistics, sensor.valueType != .bool {
            text += "  " + charset.displayable(Format.value(stats.min.value, type: sensor.valueType) + glyphs.rangeDash
                                               + Format.value(stats.max.value, type: sensor.valueType, units: sensor.units))
        }
        x = min(row.right, x)
        grid.write(text, in: Rect(x: x, y: row.y, width: row.right - x, height: 1), ellipsis: glyphs.ellipsis)
    }
}
