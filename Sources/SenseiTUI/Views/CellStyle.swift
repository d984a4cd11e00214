/// What a cell's colour means, not which colour it is: the terminal layer maps
/// roles to colour pairs, or ignores them on a terminal without colours. Views
/// therefore never rely on colour alone (selection is also reverse, stale is
/// also a mark).
public enum ColorRole: UInt8, Hashable, Sendable, CaseIterable {
    case none
    /// Titles, the chart line, the current range.
    case accent
    /// Axes, tick labels and other chrome.
    case axis
    /// Online, fresh data.
    case ok
    /// Offline, notices the user should see.
    case warning
    /// Failures such as a rejected token.
    case error
    /// Sensors that have gone quiet.
    case stale
    /// The second to fourth series of a compare chart (the first is `accent`).
    case series2, series3, series4
}

/// Attributes of one cell. A plain value so frames can be diffed cell by cell.
public struct CellStyle: Hashable, Sendable {
    public var bold: Bool
    public var dim: Bool
    public var reverse: Bool
    public var underline: Bool
    public var role: ColorRole

    public init(bold: Bool = false, dim: Bool = false, reverse: Bool = false, underline: Bool = false,
                role: ColorRole = .none) {
        self.bold = bold
        self.dim = dim
        self.reverse = reverse
        self.underline = underline
        self.role = role
    }

    public static let plain = CellStyle()

    public static func role(_ role: ColorRole) -> CellStyle { CellStyle(role: role) }

    public var bolded: CellStyle { var copy = self; copy.bold = true; return copy }
    public var dimmed: CellStyle { var copy = self; copy.dim = true; return copy }
    public var reversed: CellStyle { var copy = self; copy.reverse = true; return copy }
    public var underlined: CellStyle { var copy = self; copy.underline = true; return copy }
}

/// One screen position: a single-width grapheme and its style.
public struct Cell: Hashable, Sendable {
    public var character: Character
    public var style: CellStyle

    public init(_ character: Character = " ", style: CellStyle = .plain) {
        self.character = character
        self.style = style
    }

    public static let blank = Cell()
}
