import SenseiClient

/// A series reduced to the dot columns of a chart: per column the readings'
/// min, max and mean, so a spike inside a column still reaches its extreme
/// however many readings share the column.
///
/// The window [start, end] is inclusive and cut into equal spans; a reading at
/// `end` belongs to the last column. Columns without readings are gaps. Two
/// consecutive non-empty columns are joined by a line unless the time between
/// them is longer than `maxGap` and at least one empty column separates them:
/// the device was silent, and a line would invent data.
public struct ColumnSeries: Hashable, Sendable {
    public struct Column: Hashable, Sendable {
        /// Series points in the column (readings, or buckets).
        public var points = 0
        /// Readings they stand for (a bucket counts its readings).
        public var count = 0
        public var min = Double.infinity
        public var max = -Double.infinity
        /// Sum of values, each weighted by its count.
        public var sum = 0.0
        /// Values of the first and last point, where lines to neighbours attach.
        public var first = 0.0
        public var last = 0.0
        public var firstTime: Int64 = 0
        public var lastTime: Int64 = 0
        /// Indices of the first and last point in the series.
        public var firstIndex = 0
        public var lastIndex = 0
        /// Draw a line from the previous non-empty column to this one.
        public var joinsPrevious = false

        public init() {}

        public var isEmpty: Bool { points == 0 }
        public var mean: Double { count > 0 ? sum / Double(count) : .nan }
    }

    public let start: Int64
    public let end: Int64
    public private(set) var columns: [Column]
    /// The longest silence still bridged by a line, in milliseconds.
    public let maxGap: Int64
    /// The lowest minimum and highest maximum over all columns; nil when empty.
    public private(set) var valueRange: ClosedRange<Double>?

    /// Reduces `series` (ascending timestamps) over [start, end] into `columns`
    /// columns in one pass, without allocating per point. `maxGap` defaults to
    /// three times the median spacing of the points in the window.
    public init(_ series: TimeSeries, start: Int64, end: Int64, columns count: Int, maxGap: Int64? = nil) {
        self.start = start
        self.end = max(start, end)
        let columnCount = max(0, count)
        var columns = Array(repeating: Column(), count: columnCount)
        let low = series.lowerBound(start)
        let high = max(low, series.upperBound(end))
        self.maxGap = maxGap ?? series.medianSpacing(in: low..<high).map { $0.multipliedReportingOverflow(by: 3).partialValue } ?? .max
        if columnCount > 0 && high > low {
            Self.accumulate(series, indices: low..<high, start: start, span: Swift.max(1, self.end - start),
                            into: &columns)
        }
        var range: ClosedRange<Double>?
        var previous: Int?
        for index in columns.indices where !columns[index].isEmpty {
            if let previous {
                columns[index].joinsPrevious = index == previous + 1
                    || columns[index].firstTime - columns[previous].lastTime <= self.maxGap
            }
            let column = columns[index]
            range = range.map { Swift.min($0.lowerBound, column.min)...Swift.max($0.upperBound, column.max) }
                ?? column.min...column.max
            previous = index
        }
        self.columns = columns
        valueRange = range
    }

    /// The hot loop: one comparison per point to see whether it left the
    /// current column; the division that finds the next column runs at most
    /// once per column, not per point.
    private static func accumulate(_ series: TimeSeries, indices: Range<Int>, start: Int64, span: Int64,
                                   into columns: inout [Column]) {
        let columnCount = Int64(columns.count)
        let counts = series.counts ?? []
        series.timestamps.withUnsafeBufferPointer { times in
        series.values.withUnsafeBufferPointer { values in
        (series.minimums ?? series.values).withUnsafeBufferPointer { lows in
        (series.maximums ?? series.values).withUnsafeBufferPointer { highs in
        counts.withUnsafeBufferPointer { weights in
        columns.withUnsafeMutableBufferPointer { output in
            let weighted = !weights.isEmpty
            var current = -1
            var nextBoundary = Int64.min
            var column = Column()
            for index in indices {
                let time = times[index]
                let offset = time - start
                if offset >= nextBoundary {
                    if current >= 0 { output[current] = column }
                    current = Int(Swift.min(columnIndex(offset: offset, span: span, columns: columnCount),
                                            columnCount - 1))
                    nextBoundary = Int64(current) + 1 < columnCount
                        ? boundary(Int64(current) + 1, span: span, columns: columnCount) : .max
                    column = Column()
                    column.first = values[index]
                    column.firstTime = time
                    column.firstIndex = index
                }
                let value = values[index]
                let weight = weighted ? Swift.max(1, weights[index]) : 1
                column.points += 1
                column.count += weight
                column.sum += value * Double(weight)
                column.min = Swift.min(column.min, lows[index])
                column.max = Swift.max(column.max, highs[index])
                column.last = value
                column.lastTime = time
                column.lastIndex = index
            }
            if current >= 0 { output[current] = column }
        }}}}}}
    }

    /// floor(offset × columns / span), exact in 128 bits.
    static func columnIndex(offset: Int64, span: Int64, columns: Int64) -> Int64 {
        span.dividingFullWidth(offset.multipliedFullWidth(by: columns)).quotient
    }

    /// The first offset of column `index`: ceil(index × span / columns).
    static func boundary(_ index: Int64, span: Int64, columns: Int64) -> Int64 {
        let (quotient, remainder) = columns.dividingFullWidth(span.multipliedFullWidth(by: index))
        return remainder > 0 ? quotient + 1 : quotient
    }

    public var count: Int { columns.count }
    public var isEmpty: Bool { valueRange == nil }

    /// The column `time` falls in; nil outside the window.
    public func column(of time: Int64) -> Int? {
        guard time >= start, time <= end, !columns.isEmpty else { return nil }
        let index = Self.columnIndex(offset: time - start, span: Swift.max(1, end - start), columns: Int64(columns.count))
        return Int(Swift.min(index, Int64(columns.count - 1)))
    }

    /// The times column `index` covers: [lower, upper).
    public func timeSpan(ofColumn index: Int) -> Range<Int64> {
        let span = Swift.max(1, end - start), total = Int64(columns.count)
        let lower = start + Self.boundary(Int64(index), span: span, columns: total)
        let upper = start + Self.boundary(Int64(index) + 1, span: span, columns: total)
        return lower..<Swift.max(lower, upper)
    }
}
