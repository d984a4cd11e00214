import SenseiModels

/// The detail's usage bars (`u`): in the chart's place, with the range's
/// total and the interval under the cursor on the readout line.
extension DetailView {
    static func renderUsage(state: DetailState, model: AppModel, into grid: inout CellGrid, chart: Rect,
                            readout: Rect) {
        let charset = model.charset, glyphs = charset.glyphs
        guard let report = model.usageReport else {
            grid.write(usageAbsence(state.usage, charset: charset), in: chart.row(chart.height / 2),
                       alignment: .center, style: CellStyle(dim: true), ellipsis: glyphs.ellipsis)
            return
        }
        let bars = UsageBars(report: report, zone: model.zone, charset: charset, cursor: state.cursor)
        bars.render(into: &grid, area: chart)
        guard !readout.isEmpty else { return }
        let total = "total " + usageValue(report.total, units: report.units)
        guard let index = state.cursor, report.usage.indices.contains(index) else {
            let hint = "  per \(report.interval.rawValue), \(report.timeZone)  \(glyphs.arrowLeft)/\(glyphs.arrowRight) interval"
            let x = grid.write(charset.displayable(total), x: readout.x, y: readout.y, style: CellStyle(bold: true),
                               clip: readout)
            grid.write(charset.displayable(hint), in: Rect(x: x, y: readout.y, width: max(0, readout.right - x), height: 1),
                       style: CellStyle(dim: true), ellipsis: glyphs.ellipsis)
            return
        }
        let bucket = report.usage[index]
        let text = bars.longName(of: bucket.start) + "  " + usageValue(bucket.value, units: report.units)
            + (bucket.complete ? "" : " so far") + "  (\(bucket.count) readings)  " + total
        grid.write(charset.displayable(text), in: readout, style: CellStyle(bold: true), ellipsis: glyphs.ellipsis)
    }

    /// `12.4 kWh`: four significant digits are more than a meter's accuracy.
    static func usageValue(_ value: Double, units: String) -> String {
        Format.number(value, significantDigits: 4, maxDecimals: 3) + (units.isEmpty ? "" : " " + units)
    }

    /// Why there are no bars yet: still asking, nothing cached while the
    /// server is away, or a server without usage.
    static func usageAbsence(_ load: UsageLoad?, charset: Charset) -> String {
        guard let load, !(load.usage == nil && load.fetching) else { return "Loading usage" + charset.glyphs.ellipsis }
        guard load.usage != nil else { return "no usage cached for this range, and the server is not answering" }
        return "usage unavailable: the server has no usage route (older than Sensei 1.2)"
    }
}
