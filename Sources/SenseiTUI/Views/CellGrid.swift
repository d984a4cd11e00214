/// A frame: a plain grid of cells that widgets draw into and the terminal layer
/// copies to the screen (writing only the cells that changed).
///
/// Every cell holds one single-width grapheme. Braille, box drawing and block
/// elements are all single-width, which is all the dashboard draws itself;
/// sensor names are shown one grapheme per cell. Writes outside the grid, or
/// outside the clip rect a caller passes, are dropped, so widgets never need to
/// bounds-check.
public struct CellGrid: Hashable, Sendable {
    public let width: Int
    public let height: Int
    public private(set) var cells: [Cell]

    public init(width: Int, height: Int, fill: Cell = .blank) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: fill, count: self.width * self.height)
    }

    /// A grid pre-filled with `character`, as widget tests use to see which
    /// cells a widget left alone.
    public init(width: Int, height: Int, filledWith character: Character) {
        self.init(width: width, height: height, fill: Cell(character))
    }

    public var bounds: Rect { Rect(x: 0, y: 0, width: width, height: height) }

    /// The cell at (x, y); a blank cell outside the grid.
    public subscript(x: Int, y: Int) -> Cell {
        get {
            guard x >= 0, x < width, y >= 0, y < height else { return .blank }
            return cells[y * width + x]
        }
        set {
            guard x >= 0, x < width, y >= 0, y < height else { return }
            cells[y * width + x] = newValue
        }
    }

    public mutating func set(_ character: Character, x: Int, y: Int, style: CellStyle = .plain) {
        self[x, y] = Cell(Self.printable(character), style: style)
    }

    /// Changes the style of the cells in `rect`, keeping their characters.
    public mutating func restyle(_ rect: Rect, _ change: (inout CellStyle) -> Void) {
        let area = rect.intersection(bounds)
        for y in area.y..<area.bottom {
            for x in area.x..<area.right {
                change(&cells[y * width + x].style)
            }
        }
    }

    public mutating func fill(_ rect: Rect, with character: Character = " ", style: CellStyle = .plain) {
        let area = rect.intersection(bounds)
        let cell = Cell(Self.printable(character), style: style)
        for y in area.y..<area.bottom {
            for x in area.x..<area.right {
                cells[y * width + x] = cell
            }
        }
    }

    /// Writes `text` from (x, y) rightwards, one grapheme per cell, dropping
    /// what falls outside the grid or `clip`. Returns the column after the text.
    @discardableResult
    public mutating func write(_ text: String, x: Int, y: Int, style: CellStyle = .plain, clip: Rect? = nil) -> Int {
        let area = clip.map { $0.intersection(bounds) } ?? bounds
        var column = x
        guard y >= area.y, y < area.bottom else { return x + text.count }
        for character in text {
            if column >= area.right { return x + text.count }
            if column >= area.x {
                cells[y * width + column] = Cell(Self.printable(character), style: style)
            }
            column += 1
        }
        return column
    }

    /// Writes `text` into the one-row `rect`: cut to fit (with `ellipsis` when
    /// it had to be cut) and aligned.
    public mutating func write(_ text: String, in rect: Rect, alignment: Alignment = .left,
                               style: CellStyle = .plain, ellipsis: String = "…") {
        guard !rect.isEmpty else { return }
        let shown = Self.truncate(text, to: rect.width, ellipsis: ellipsis)
        let count = shown.count
        let x: Int
        switch alignment {
        case .left: x = rect.x
        case .right: x = rect.right - count
        case .center: x = rect.x + (rect.width - count) / 2
        }
        write(shown, x: x, y: rect.y, style: style, clip: rect)
    }

    public enum Alignment: Sendable { case left, center, right }

    /// `text` cut to at most `width` graphemes, ending in `ellipsis` when cut.
    public static func truncate(_ text: String, to width: Int, ellipsis: String = "…") -> String {
        guard width > 0 else { return "" }
        guard text.count > width else { return text }
        let mark = ellipsis.count < width ? ellipsis : ""
        return String(text.prefix(width - mark.count)) + mark
    }

    /// Row `y` as text, trailing spaces trimmed.
    public func line(_ y: Int) -> String {
        guard y >= 0, y < height else { return "" }
        var text = String(cells[(y * width)..<(y * width + width)].map(\.character))
        while text.last == " " { text.removeLast() }
        return text
    }

    /// All rows as text, trailing spaces trimmed: what snapshot tests compare.
    public var lines: [String] { (0..<height).map(line) }

    public var text: String { lines.joined(separator: "\n") }

    /// Control characters (a newline in a sensor name, say) would move the
    /// terminal's cursor; they are shown as spaces.
    private static func printable(_ character: Character) -> Character {
        guard let scalar = character.unicodeScalars.first, character.unicodeScalars.count == 1 else {
            return character
        }
        return scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) ? " " : character
    }
}
