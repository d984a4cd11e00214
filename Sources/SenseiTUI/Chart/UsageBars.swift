import SenseiModels

/// Usage per interval as a bar chart: one bar an hour, day or month, the
/// value's scale on the left, the intervals' local names underneath. The
/// running interval is dim (it is not over); the cursor's bar is reversed.
public struct UsageBars: Sendable {
    public var report: UsageReport
    /// The zone the intervals are in, to name them in its local time.
    public var zone: TimeZoneRules
    public var charset: Charset
    /// The bar under the cursor (an index into `report.usage`).
    public var cursor: Int?

    public init(report: UsageReport, zone: TimeZoneRules, charset: Charset = .unicode, cursor: Int? = nil) {
        self.report = report
        self.zone = zone
        self.charset = charset
        self.cursor = cursor
    }

    /// Where the bars went: the plot and each shown bar's columns, for a cursor.
    public struct Layout: Hashable, Sendable {
        public var plot: Rect
        /// The first bucket shown (when there are more than columns, the newest).
        public var firstShown: Int
        public var slotWidth: Int
    }

    /// Where `render` puts the plot and which bars it shows, without drawing:
    /// the update logic keeps the cursor on a shown bar with it.
    public func layout(in area: Rect) -> Layout {
        let count = report.usage.count
        let axisWidth = min(area.width / 3, (axisLabels.map(\.count).max() ?? 1) + 1)
        let plot = Rect(x: area.x + axisWidth + 1, y: area.y, width: max(0, area.width - axisWidth - 1),
                        height: max(0, area.height - 1))
        guard plot.width > 0, plot.height > 0, count > 0 else { return Layout(plot: plot, firstShown: 0, slotWidth: 1) }
        let shown = min(count, plot.width)
        return Layout(plot: plot, firstShown: count - shown, slotWidth: plot.width / shown)
    }

    /// The scale's top, with the units, and the bottom.
    private var axisLabels: [String] {
        [Format.number(scale) + " " + report.units, "0"].map(charset.displayable)
    }

    private var scale: Double { Self.niceCeiling(report.usage.map(\.value).max() ?? 0) }

    @discardableResult
    public func render(into grid: inout CellGrid, area: Rect) -> Layout {
        let buckets = report.usage
        let scale = self.scale
        let labels = axisLabels
        let layout = self.layout(in: area)
        let (plot, firstShown, slotWidth) = (layout.plot, layout.firstShown, layout.slotWidth)
        guard plot.width > 0, plot.height > 0, !buckets.isEmpty else {
            grid.write("no usage", in: area.row(area.height / 2), alignment: .center, style: CellStyle(dim: true))
            return layout
        }
        // A gap between bars when they are wide enough to spare one.
        let barWidth = slotWidth >= 3 ? slotWidth - 1 : slotWidth
        let axisWidth = plot.x - 1 - area.x
        grid.write(labels[0], in: Rect(x: area.x, y: plot.y, width: axisWidth, height: 1), alignment: .right,
                   style: CellStyle(dim: true))
        grid.write(labels[1], in: Rect(x: area.x, y: plot.bottom - 1, width: axisWidth, height: 1), alignment: .right,
                   style: CellStyle(dim: true))
        for y in plot.y..<plot.bottom { grid.set(charset.glyphs.vertical, x: plot.x - 1, y: y, style: CellStyle(dim: true)) }
        for (slot, index) in (firstShown..<buckets.count).enumerated() {
            let bucket = buckets[index]
            var style = CellStyle(role: .accent)
            if !bucket.complete { style = style.dimmed }
            if index == cursor { style = style.reversed }
            let x = plot.x + slot * slotWidth
            drawBar(height: scale > 0 ? max(0, bucket.value) / scale : 0, x: x, width: barWidth, plot: plot,
                    style: style, into: &grid)
        }
        drawNames(firstShown: firstShown, slotWidth: slotWidth, plot: plot, into: &grid)
        return layout
    }

    /// A bar `fraction` of the plot tall, in eighths of a cell (whole cells in ASCII).
    private func drawBar(height fraction: Double, x: Int, width: Int, plot: Rect, style: CellStyle,
                         into grid: inout CellGrid) {
        let levels = charset == .unicode ? 8 : 1
        let eighths = Int((fraction * Double(plot.height * levels)).rounded())
        for row in 0..<plot.height {
            let filled = eighths - row * levels
            guard filled > 0 else { break }
            let glyph: Character = charset == .unicode
                ? charset.glyphs.levels[min(levels, filled) - 1] : "#"
            for column in x..<min(x + width, plot.right) {
                grid.set(glyph, x: column, y: plot.bottom - 1 - row, style: style)
            }
        }
    }

    /// Interval names under the bars, as many as fit without touching.
    private func drawNames(firstShown: Int, slotWidth: Int, plot: Rect, into grid: inout CellGrid) {
        let names = report.usage[firstShown...].map { name(of: $0.start) }
        let widest = (names.map(\.count).max() ?? 1) + 1
        let every = max(1, (widest + slotWidth - 1) / slotWidth)
        for (slot, name) in names.enumerated() where slot % every == 0 {
            grid.write(name, x: plot.x + slot * slotWidth, y: plot.bottom, style: CellStyle(dim: true),
                       clip: Rect(x: plot.x, y: plot.bottom, width: plot.width, height: 1))
        }
    }

    /// An interval's local name: its hour, its day of the month, or its month.
    func name(of start: Timestamp) -> String {
        let local = LocalTime(start, utcOffsetSeconds: Int(zone.offsetMilliseconds(at: start.milliseconds) / 1000))
        switch report.interval {
        case .hour: return Format.padded(local.hour)
        case .day: return report.usage.count <= 7 ? local.weekdayName : String(local.day)
        case .week: return "\(local.monthName) \(local.day)"
        case .month: return local.monthName
        }
    }

    /// An interval's name in full, for the cursor: `Sun Oct 26 14:00`,
    /// `Tue Oct 21`, `week of Oct 20`, `Oct 2025`.
    public func longName(of start: Timestamp) -> String {
        let local = LocalTime(start, utcOffsetSeconds: Int(zone.offsetMilliseconds(at: start.milliseconds) / 1000))
        let date = "\(local.weekdayName) \(local.monthName) \(Format.padded(local.day))"
        switch report.interval {
        case .hour: return date + " " + Format.padded(local.hour) + ":" + Format.padded(local.minute)
        case .day: return date
        case .week: return "week of \(local.monthName) \(Format.padded(local.day))"
        case .month: return "\(local.monthName) \(local.year)"
        }
    }

    /// The scale's top: the next 1, 2 or 5 times a power of ten at or above `value`.
    static func niceCeiling(_ value: Double) -> Double {
        guard value > 0, value.isFinite else { return 0 }
        var power = 1.0
        while power * 10 <= value { power *= 10 }
        while power > value { power /= 10 }
        return [1.0, 2, 5, 10].map { $0 * power }.first { $0 >= value } ?? power * 10
    }
}
