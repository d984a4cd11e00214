/// A dot raster of 2×4 dots a cell, drawn as braille (U+2800 + dot bits, as
/// ratatui's BrailleGrid) or, for terminals without UTF-8, one ASCII character
/// a cell chosen from where its dots sit.
///
/// Dot coordinates: x grows right, y grows down, (0, 0) is the top-left dot.
/// Dots outside the canvas are ignored, so callers can draw lines that leave it.
public struct BrailleCanvas: Hashable, Sendable {
    /// Size in cells.
    public let width: Int
    public let height: Int
    private var bits: [UInt8]

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        bits = Array(repeating: 0, count: self.width * self.height)
    }

    public var dotWidth: Int { width * 2 }
    public var dotHeight: Int { height * 4 }

    /// The braille bit of each dot, by [row][column] within a cell.
    private static let dotBits: [[UInt8]] = [[0x01, 0x08], [0x02, 0x10], [0x04, 0x20], [0x40, 0x80]]

    public mutating func set(x: Int, y: Int) {
        guard x >= 0, y >= 0, x < dotWidth, y < dotHeight else { return }
        bits[(y >> 2) * width + (x >> 1)] |= Self.dotBits[y & 3][x & 1]
    }

    /// All dots of column `x` between rows `y0` and `y1`, both included.
    public mutating func verticalLine(x: Int, from y0: Int, to y1: Int) {
        guard x >= 0, x < dotWidth else { return }
        let top = max(0, min(y0, y1))
        let bottom = min(dotHeight - 1, max(y0, y1))
        guard top <= bottom else { return }
        for y in top...bottom { set(x: x, y: y) }
    }

    /// A Bresenham line between two dots, both included.
    public mutating func line(from start: (x: Int, y: Int), to end: (x: Int, y: Int)) {
        var x = start.x
        var y = start.y
        let dx = abs(end.x - x)
        let dy = -abs(end.y - y)
        let stepX = x < end.x ? 1 : -1
        let stepY = y < end.y ? 1 : -1
        var error = dx + dy
        while true {
            set(x: x, y: y)
            if x == end.x && y == end.y { return }
            let doubled = 2 * error
            if doubled >= dy { error += dy; x += stepX }
            if doubled <= dx { error += dx; y += stepY }
        }
    }

    /// The dot bits of one cell (0 when it has no dots).
    public func cellBits(column: Int, row: Int) -> UInt8 {
        guard column >= 0, row >= 0, column < width, row < height else { return 0 }
        return bits[row * width + column]
    }

    /// The character of one cell, nil when it has no dots.
    public func character(column: Int, row: Int, charset: Charset) -> Character? {
        Self.character(bits: cellBits(column: column, row: row), charset: charset)
    }

    /// The character of a cell's dot bits; nil for none.
    public static func character(bits cell: UInt8, charset: Charset) -> Character? {
        guard cell != 0 else { return nil }
        switch charset {
        case .unicode: return Character(Unicode.Scalar(0x2800 + UInt32(cell))!)
        case .ascii: return Self.asciiCharacter(cell)
        }
    }

    /// ASCII has no dots, so a cell shows where its dots are: a tall stroke
    /// `|`, or a mark high `'`, middle `-` or low `.`. A flat line reads as
    /// `-----`, a climb as `.-'`.
    static func asciiCharacter(_ cell: UInt8) -> Character {
        let rowMasks: [UInt8] = [0x09, 0x12, 0x24, 0xC0]
        let rows = (0..<4).filter { cell & rowMasks[$0] != 0 }
        let top = rows.first!, bottom = rows.last!
        if bottom - top >= 2 { return "|" }
        switch top + bottom {
        case 0, 1: return "'"
        case 5, 6: return "."
        default: return "-"
        }
    }

    /// Draws the dotted cells at `origin` (top-left cell); cells without dots
    /// are left as they are.
    public func render(into grid: inout CellGrid, x originX: Int, y originY: Int,
                       charset: Charset, style: CellStyle = .plain) {
        for row in 0..<height {
            for column in 0..<width {
                guard let character = self.character(column: column, row: row, charset: charset) else { continue }
                grid.set(character, x: originX + column, y: originY + row, style: style)
            }
        }
    }

    /// The canvas as text (blank cells as spaces, trailing spaces trimmed), for tests.
    public func lines(charset: Charset) -> [String] {
        var grid = CellGrid(width: width, height: height)
        render(into: &grid, x: 0, y: 0, charset: charset)
        return grid.lines
    }
}
