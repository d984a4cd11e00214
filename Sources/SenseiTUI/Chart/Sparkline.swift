import SenseiClient

/// A one-row chart of a series (the list's last 24 hours): one block a cell,
/// ▁ to █ (or `_.-=^` in ASCII), spaces where the device was silent.
public struct Sparkline: Sendable {
    public var series: TimeSeries
    /// The window shown, inclusive, ms since the epoch.
    public var start: Int64
    public var end: Int64
    public var charset: Charset
    /// The longest silence still bridged; nil: 3× the median spacing.
    public var maxGap: Int64?
    /// Hold each value until the next reading (on/off sensors) rather than
    /// interpolating between them.
    public var stepped: Bool

    public init(series: TimeSeries, start: Int64, end: Int64, charset: Charset = .unicode, maxGap: Int64? = nil,
                stepped: Bool = false) {
        self.series = series
        self.start = start
        self.end = end
        self.charset = charset
        self.maxGap = maxGap
        self.stepped = stepped
    }

    /// The sparkline `width` cells wide; columns with no data are spaces.
    public func text(width: Int) -> String {
        guard width > 0 else { return "" }
        let columns = ColumnSeries(series, start: start, end: end, columns: width, maxGap: maxGap)
        guard !columns.isEmpty else { return String(repeating: " ", count: width) }
        let values = representativeValues(columns)
        let known = values.compactMap { $0 }
        let low = known.min()!, high = known.max()!
        let levels = charset.glyphs.levels
        func level(_ value: Double) -> Character {
            guard high > low else { return levels[(levels.count - 1) / 2] }
            let index = Int(((value - low) / (high - low) * Double(levels.count - 1)).rounded())
            return levels[min(levels.count - 1, max(0, index))]
        }
        return String(values.map { $0.map(level) ?? " " })
    }

    /// One value per column: the column's extreme farthest from the series'
    /// mean, so a spike up or a dip down still shows in one row of blocks.
    /// Empty columns between readings that are close enough in time (a slow
    /// device on a wide sparkline) are interpolated (or hold the previous
    /// value when stepped); real silences stay nil.
    func representativeValues(_ series: ColumnSeries) -> [Double?] {
        let columns = series.columns
        var total = 0.0, weight = 0
        for column in columns where !column.isEmpty {
            total += column.sum
            weight += column.count
        }
        let mean = total / Double(max(1, weight))
        var values: [Double?] = columns.map { column in
            guard !column.isEmpty else { return nil }
            return abs(column.max - mean) >= abs(column.min - mean) ? column.max : column.min
        }
        var previous: Int?
        for index in columns.indices where !columns[index].isEmpty {
            if let previous, index > previous + 1, columns[index].joinsPrevious,
               let from = values[previous], let to = values[index] {
                for gap in (previous + 1)..<index {
                    let fraction = Double(gap - previous) / Double(index - previous)
                    values[gap] = stepped ? from : from + (to - from) * fraction
                }
            }
            previous = index
        }
        return values
    }

    public func render(into grid: inout CellGrid, area: Rect, style: CellStyle = CellStyle(role: .accent)) {
        guard !area.isEmpty else { return }
        grid.write(text(width: area.width), x: area.x, y: area.y, style: style, clip: area)
    }
}
