import SenseiClient
import SenseiModels

/// A braille line chart of one series over [start, end]: y tick labels on the
/// left, the plot, an x axis with time labels below, and an optional cursor
/// column drawn in reverse.
///
/// Each dot column shows the vertical extent min…max of its readings (so a
/// spike survives downsampling) and is joined to the previous non-empty column
/// unless the device was silent in between (see `ColumnSeries`).
public struct LineChart: Sendable {
    public var series: TimeSeries
    /// The window shown, inclusive, ms since the epoch.
    public var start: Int64
    public var end: Int64
    /// Chooses the x label style.
    public var range: TimeRange
    public var utcOffsetSeconds: Int
    public var charset: Charset
    /// Fixed value bounds (0...1 for on/off sensors); nil fits the data.
    public var valueDomain: ClosedRange<Double>?
    /// The longest silence still bridged by a line; nil: 3× the median spacing.
    public var maxGap: Int64?
    /// The plot cell column to highlight; clamped to the plot.
    public var cursor: Int?
    /// Join readings with steps instead of slopes: an on/off state holds
    /// until the next reading, it does not fade from one to the other.
    public var stepped = false
    public var lineStyle = CellStyle(role: .accent)
    public var axisStyle = CellStyle(role: .axis)
    public var emptyMessage = "no readings in this range"
    /// More series on the same axes (a compare chart), drawn after `series`,
    /// each in its style and dash pattern (`ChartLine.keeps`).
    public var overlays: [ChartLine] = []

    public init(series: TimeSeries, start: Int64, end: Int64, range: TimeRange, utcOffsetSeconds: Int = 0,
                charset: Charset = .unicode, valueDomain: ClosedRange<Double>? = nil, maxGap: Int64? = nil,
                cursor: Int? = nil, stepped: Bool = false) {
        self.series = series
        self.start = start
        self.end = max(start, end)
        self.range = range
        self.utcOffsetSeconds = utcOffsetSeconds
        self.charset = charset
        self.valueDomain = valueDomain
        self.maxGap = maxGap
        self.cursor = cursor
        self.stepped = stepped
    }

    /// Where everything goes in an area, and the reduced data: computed once a
    /// frame and shared by drawing and the cursor readout.
    public struct Layout: Sendable {
        public var area: Rect
        public var plot: Rect
        /// Two dot columns per plot cell.
        public var columns: ColumnSeries
        /// The overlays' columns, in order.
        public var overlayColumns: [ColumnSeries] = []
        /// nil when the window holds no readings (and no fixed domain is set).
        public var ticks: AxisTicks?
        public var timeLabels: [TimeLabel]
        /// The y-axis line's column; nil when too narrow for one.
        public var axisX: Int?
        /// The x-axis line's row; nil when too low for one.
        public var axisY: Int?
        /// The time labels' row; nil when too low for them.
        public var labelY: Int?
    }

    public func layout(in area: Rect) -> Layout {
        let frame = self.frame(in: area)
        let plot = frame.plot
        return Layout(
            area: area, plot: plot,
            columns: ColumnSeries(series, start: start, end: end, columns: plot.width * 2, maxGap: maxGap),
            overlayColumns: overlays.map { ColumnSeries($0.series, start: start, end: end, columns: plot.width * 2,
                                                        maxGap: $0.maxGap) },
            ticks: frame.ticks,
            timeLabels: frame.labelY != nil
                ? TimeAxis.labels(start: start, end: end, range: range, width: plot.width, utcOffsetSeconds: utcOffsetSeconds)
                : [],
            axisX: frame.axisX, axisY: frame.axisY, labelY: frame.labelY)
    }

    /// Where the plot goes in `area`, without reducing the series: what the
    /// update logic needs to keep a cursor on the plot.
    public func plotRect(in area: Rect) -> Rect { frame(in: area).plot }

    private func frame(in area: Rect) -> (plot: Rect, ticks: AxisTicks?, axisX: Int?, axisY: Int?, labelY: Int?) {
        let xAxisRows = area.height >= 4 ? 2 : (area.height >= 2 ? 1 : 0)
        let plotHeight = area.height - xAxisRows
        let bounds = valueDomain ?? valueBounds()
        // A tick every other row at most; three even on low plots, where two
        // would widen the axis to 0…50 for data in 10…25.
        let ticks = bounds.map { AxisTicks(min: $0.lowerBound, max: $0.upperBound, maxCount: max(3, plotHeight / 2 + 1)) }
        let labelWidth = ticks?.labelWidth ?? 0
        // One row cannot say which value it is at: no y axis then.
        let hasYAxis = plotHeight >= 2 && area.width - labelWidth - 1 >= 4
        let left = hasYAxis ? labelWidth + 1 : 0
        let plot = Rect(x: area.x + left, y: area.y, width: area.width - left, height: plotHeight)
        return (plot, ticks, hasYAxis ? plot.x - 1 : nil, xAxisRows == 2 ? plot.bottom : nil,
                xAxisRows > 0 ? area.bottom - 1 : nil)
    }

    /// The smallest and largest value in the window, of every line, in one
    /// cheap pass each (the tick labels decide the plot's width, so they come
    /// before the reduction).
    func valueBounds() -> ClosedRange<Double>? {
        ([series] + overlays.map(\.series)).compactMap(valueBounds(of:)).reduce(nil) { union, bounds in
            union.map { min($0.lowerBound, bounds.lowerBound)...max($0.upperBound, bounds.upperBound) } ?? bounds
        }
    }

    private func valueBounds(of series: TimeSeries) -> ClosedRange<Double>? {
        let low = series.lowerBound(start), high = series.upperBound(end)
        guard high > low else { return nil }
        var minimum = Double.infinity, maximum = -Double.infinity
        if let minimums = series.minimums, let maximums = series.maximums {
            for index in low..<high {
                minimum = min(minimum, minimums[index])
                maximum = max(maximum, maximums[index])
            }
        } else {
            series.values.withUnsafeBufferPointer { values in
                for value in values[low..<high] {
                    minimum = min(minimum, value)
                    maximum = max(maximum, value)
                }
            }
        }
        return minimum...maximum
    }

    @discardableResult
    public func render(into grid: inout CellGrid, area: Rect) -> Layout {
        let layout = self.layout(in: area)
        render(layout, into: &grid)
        return layout
    }

    public func render(_ layout: Layout, into grid: inout CellGrid) {
        let glyphs = charset.glyphs
        let plot = layout.plot
        guard !layout.area.isEmpty else { return }
        grid.fill(layout.area)
        var tickRows: [Int] = []
        if let ticks = layout.ticks, !plot.isEmpty {
            var canvas = BrailleCanvas(width: plot.width, height: plot.height)
            draw(layout.columns, on: &canvas, ticks: ticks, stepped: stepped)
            if overlays.isEmpty {
                canvas.render(into: &grid, x: plot.x, y: plot.y, charset: charset, style: lineStyle)
            } else {
                var canvases = [canvas]
                for (line, columns) in zip(overlays, layout.overlayColumns) {
                    var overlay = BrailleCanvas(width: plot.width, height: plot.height)
                    draw(columns, on: &overlay, ticks: ticks, stepped: line.stepped)
                    canvases.append(overlay)
                }
                renderOverlaid(canvases, at: plot, into: &grid)
            }
            for (value, label) in zip(ticks.values, ticks.labels).reversed() {
                let row = plot.y + dotRow(value, ticks: ticks, dots: plot.height * 4) / 4
                guard tickRows.last != row else { continue }
                tickRows.append(row)
                if let axisX = layout.axisX {
                    grid.write(label, in: Rect(x: layout.area.x, y: row, width: axisX - layout.area.x, height: 1),
                               alignment: .right, style: axisStyle)
                }
            }
        }
        if layout.columns.isEmpty && layout.overlayColumns.allSatisfy(\.isEmpty) && !plot.isEmpty {
            grid.write(emptyMessage, in: plot.row(plot.height / 2), alignment: .center, style: axisStyle.dimmed,
                       ellipsis: glyphs.ellipsis)
        }
        if let axisX = layout.axisX {
            for row in plot.y..<plot.bottom {
                grid.set(tickRows.contains(row) ? glyphs.leftTick : glyphs.vertical, x: axisX, y: row, style: axisStyle)
            }
        }
        if let axisY = layout.axisY {
            if let axisX = layout.axisX { grid.set(glyphs.corner, x: axisX, y: axisY, style: axisStyle) }
            grid.fill(Rect(x: plot.x, y: axisY, width: plot.width, height: 1), with: glyphs.horizontal, style: axisStyle)
            for label in layout.timeLabels {
                grid.set(glyphs.bottomTick, x: plot.x + label.tick, y: axisY, style: axisStyle)
            }
        }
        if let labelY = layout.labelY {
            for label in layout.timeLabels {
                grid.write(label.text, x: plot.x + label.x, y: labelY, style: axisStyle, clip: plot.isEmpty ? nil :
                    Rect(x: plot.x, y: labelY, width: plot.width, height: 1))
            }
        }
        if let column = clampedCursor(in: layout) {
            grid.restyle(Rect(x: plot.x + column, y: plot.y, width: 1, height: plot.height)) { $0.reverse = true }
        }
    }

    /// The lines' dots merged cell by cell, each line keeping only the cells
    /// of its dash pattern; a cell takes the style of the first line in it.
    private func renderOverlaid(_ canvases: [BrailleCanvas], at plot: Rect, into grid: inout CellGrid) {
        let styles = [lineStyle] + overlays.map(\.style)
        for row in 0..<plot.height {
            for column in 0..<plot.width {
                var bits: UInt8 = 0
                var owner: Int?
                for (index, canvas) in canvases.enumerated() where ChartLine.keeps(line: index, column: column) {
                    let cell = canvas.cellBits(column: column, row: row)
                    guard cell != 0 else { continue }
                    bits |= cell
                    owner = owner ?? index
                }
                guard let owner, let character = BrailleCanvas.character(bits: bits, charset: charset) else { continue }
                grid.set(character, x: plot.x + column, y: plot.y + row, style: styles[owner])
            }
        }
    }

    private func draw(_ columns: ColumnSeries, on canvas: inout BrailleCanvas, ticks: AxisTicks, stepped: Bool) {
        let dots = canvas.dotHeight
        var previous: Int?
        for (x, column) in columns.columns.enumerated() where !column.isEmpty {
            if column.joinsPrevious, let previous {
                let from = dotRow(columns.columns[previous].last, ticks: ticks, dots: dots)
                let to = dotRow(column.first, ticks: ticks, dots: dots)
                if stepped {
                    canvas.line(from: (previous, from), to: (x, from))
                    canvas.verticalLine(x: x, from: from, to: to)
                } else {
                    canvas.line(from: (previous, from), to: (x, to))
                }
            }
            canvas.verticalLine(x: x, from: dotRow(column.max, ticks: ticks, dots: dots),
                                to: dotRow(column.min, ticks: ticks, dots: dots))
            previous = x
        }
    }

    /// The dot row of `value`: the top tick on row 0, the bottom one on the last.
    private func dotRow(_ value: Double, ticks: AxisTicks, dots: Int) -> Int {
        let span = ticks.upper - ticks.lower
        guard span > 0, dots > 1 else { return 0 }
        let fraction = (ticks.upper - value) / span
        return min(dots - 1, max(0, Int((fraction * Double(dots - 1)).rounded())))
    }

    func clampedCursor(in layout: Layout) -> Int? {
        guard let cursor, layout.plot.width > 0 else { return nil }
        return min(max(0, cursor), layout.plot.width - 1)
    }

    /// What the cursor at plot cell `column` points at: the reading nearest the
    /// column's middle, within the window, plus the extent of the readings the
    /// column holds. nil when the window is empty.
    public func reading(atColumn column: Int, in layout: Layout) -> CursorReading? {
        let columns = layout.columns
        guard !columns.isEmpty, layout.plot.width > 0 else { return nil }
        let cell = min(max(0, column), layout.plot.width - 1)
        let span = columns.timeSpan(ofColumn: cell * 2).lowerBound..<columns.timeSpan(ofColumn: cell * 2 + 1).upperBound
        let middle = span.lowerBound + (span.upperBound - span.lowerBound) / 2
        let low = series.lowerBound(start), high = series.upperBound(end)
        guard high > low, var index = series.nearestIndex(to: middle) else { return nil }
        index = min(max(index, low), high - 1)
        var extent: ClosedRange<Double>?
        var count = 0
        for dotColumn in columns.columns[(cell * 2)...(cell * 2 + 1)] where !dotColumn.isEmpty {
            extent = extent.map { min($0.lowerBound, dotColumn.min)...max($0.upperBound, dotColumn.max) }
                ?? dotColumn.min...dotColumn.max
            count += dotColumn.count
        }
        return CursorReading(reading: series.reading(at: index), isAggregate: series.isAggregated,
                             columnExtent: extent, columnCount: count)
    }
}

/// The reading under the chart cursor.
public struct CursorReading: Hashable, Sendable {
    /// The nearest reading (a bucket's start and mean for aggregated series).
    public var reading: Reading
    public var isAggregate: Bool
    /// min…max of what the cursor's column holds; nil when the column is a gap.
    public var columnExtent: ClosedRange<Double>?
    /// How many readings the cursor's column holds.
    public var columnCount: Int
}
