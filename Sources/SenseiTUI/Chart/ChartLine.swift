import SenseiClient

/// One more series on a chart's axes (`LineChart.overlays`).
public struct ChartLine: Sendable {
    public var series: TimeSeries
    /// The longest silence still bridged by a line.
    public var maxGap: Int64?
    public var stepped: Bool
    public var style: CellStyle

    /// The styles of a compare chart's lines, first to fourth.
    public static let styles = [CellStyle(role: .accent), CellStyle(role: .series2), CellStyle(role: .series3),
                                CellStyle(role: .series4)]

    public init(series: TimeSeries, maxGap: Int64?, stepped: Bool, style: CellStyle) {
        self.series = series
        self.maxGap = maxGap
        self.stepped = stepped
        self.style = style
    }

    /// Whether line `line` (0: the chart's own series) draws in plot cell
    /// `column`: solid, every other cell, two of three, one of four. So the
    /// lines stay apart without colours, in braille and in ASCII alike.
    public static func keeps(line: Int, column: Int) -> Bool {
        switch line {
        case 0: true
        case 1: column % 2 == 0
        case 2: column % 3 != 2
        default: column % 4 == 0
        }
    }

    /// A legend's sample of line `line`'s pattern, four cells wide.
    public static func sample(line: Int, charset: Charset) -> String {
        let on: Character = charset == .ascii ? "-" : "⠒", off: Character = charset == .ascii ? " " : "⠀"
        return String((0..<4).map { keeps(line: line, column: $0) ? on : off })
    }
}
