import SenseiModels

/// One sensor: title with the current value and its age, the range selector,
/// the chart, the cursor readout, then statistics, sensor information and the
/// readings table. Lower parts give way first on small screens; the chart
/// stays as long as there is a row for it.
public enum DetailView {
    public struct Layout: Hashable, Sendable {
        public var title: Rect
        public var ranges: Rect
        public var chart: Rect
        public var readout: Rect
        public var stats: Rect
        public var info: Rect
        public var table: Rect
        /// Reading rows the table shows (its first row is the header).
        public var tableRows: Int { max(0, table.height - 1) }
    }

    /// Wide screens put statistics and information beside the table.
    static let sideBySideWidth = 70
    static let statsWidth = 38

    public static func layout(in content: Rect) -> Layout {
        var rest = content
        let title: Rect, ranges: Rect
        (title, rest) = rest.splitTop(1)
        (ranges, rest) = rest.splitTop(rest.height >= 2 ? 1 : 0)
        var readout = Rect.zero
        let hasReadout = content.height >= 8
        let body = rest.height - (hasReadout ? 1 : 0)
        let panelHeight = body >= 14 ? min(14, max(6, body * 2 / 5)) : 0
        let chart: Rect
        (chart, rest) = rest.splitTop(body - panelHeight)
        if hasReadout { (readout, rest) = rest.splitTop(1) }
        var stats = Rect.zero, info = Rect.zero, table = Rect.zero
        if panelHeight > 0 {
            if content.width >= sideBySideWidth {
                let (left, right) = rest.splitLeft(statsWidth)
                (stats, info) = left.splitTop(5)
                table = right.inset(left: 2)
            } else {
                (stats, table) = rest.splitTop(5)
                if table.height < 4 { table = .zero }
            }
        }
        return Layout(title: title, ranges: ranges, chart: chart, readout: readout, stats: stats, info: info,
                      table: table)
    }

    /// The chart as this screen draws it (the update logic uses it too, to
    /// keep the cursor on the plot).
    public static func chart(for data: DetailData, model: AppModel) -> LineChart {
        LineChart(detail: data, utcOffsetSeconds: model.utcOffsetSeconds, charset: model.charset,
                  cursor: model.detail?.cursor)
    }

    public static func render(_ model: AppModel, into grid: inout CellGrid, area: Rect) {
        guard !area.isEmpty, let state = model.detail else { return }
        grid.fill(area)
        let layout = self.layout(in: area)
        let charset = model.charset
        let data = state.data
        let sensor = data?.sensor ?? model.detailSensor?.sensor
        renderTitle(sensor, summary: model.detailSensor, model: model, into: &grid, area: layout.title)
        renderRanges(model, into: &grid, area: layout.ranges)
        guard let data else {
            grid.write("Loading" + charset.glyphs.ellipsis, in: layout.chart.row(layout.chart.height / 2),
                       alignment: .center, style: CellStyle(dim: true))
            return
        }
        if model.showsUsage {
            renderUsage(state: state, model: model, into: &grid, chart: layout.chart, readout: layout.readout)
        } else {
            let chart = self.chart(for: data, model: model)
            let chartLayout = chart.render(into: &grid, area: layout.chart)
            renderReadout(chart: chart, layout: chartLayout, data: data, model: model, into: &grid,
                          area: layout.readout)
        }
        renderStatistics(data, model: model, into: &grid, area: layout.stats)
        renderInfo(data, model: model, into: &grid, area: layout.info)
        renderTable(data, state: state, model: model, into: &grid, area: layout.table)
    }

    static func renderTitle(_ sensor: Sensor?, summary: SensorSummary?, model: AppModel, into grid: inout CellGrid,
                            area: Rect) {
        let charset = model.charset
        guard let sensor else {
            TitleBar.render(left: "Sensor", right: "", into: &grid, area: area, charset: charset)
            return
        }
        var right = "no readings"
        if let latest = sensor.latest {
            right = Format.value(latest.value, type: sensor.valueType, units: sensor.units)
                + charset.glyphs.separator + Format.age(of: latest.timestamp, now: model.now)
            if summary?.isStale(now: model.now) == true { right += charset.glyphs.separator + "stale" }
        }
        TitleBar.render(left: charset.displayable(sensor.name), right: charset.displayable(right), into: &grid,
                        area: area, charset: charset)
    }

    /// "1 hour  2 day  3 week  4 month  5 year  6 all", shorter when narrow;
    /// the current range in reverse.
    static func renderRanges(_ model: AppModel, into grid: inout CellGrid, area: Rect) {
        guard !area.isEmpty else { return }
        let ranges = TimeRange.allCases
        let styles: [(TimeRange, Int) -> String] = [
            { range, index in " \(index + 1) \(range.rawValue) " },
            { range, _ in " \(range.rawValue) " },
            { range, _ in " \(range.rawValue.prefix(1)) " },
        ]
        let candidates = styles.map { label in ranges.enumerated().map { label($0.element, $0.offset) } }
        let labels = candidates.first { $0.joined().count <= area.width } ?? candidates.last!
        var x = area.x
        for (range, label) in zip(ranges, labels) {
            let style = range == model.range ? CellStyle(bold: true, reverse: true, role: .accent) : CellStyle(dim: true)
            x = grid.write(label, x: x, y: area.y, style: style, clip: area)
        }
        // Zoomed: the window shown, and how to get back.
        if let zoom = model.screen == .compare ? model.compare?.zoom : model.detail?.zoom {
            let span = Format.duration(milliseconds: zoom.upperBound - zoom.lowerBound)
            let notes = ["  zoom \(span) (0 resets)", "  zoom \(span)"]
            if let note = notes.first(where: { x + $0.count <= area.right }) {
                grid.write(note, x: x, y: area.y, style: CellStyle(bold: true, role: .warning), clip: area)
            }
        }
    }
}
