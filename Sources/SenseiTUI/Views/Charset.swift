/// What the terminal can show. With a non-UTF-8 locale ncurses cannot draw
/// braille, blocks or box drawing, so every glyph the views draw has an ASCII
/// stand-in, and text from the server (names, units) is transliterated.
public enum Charset: Hashable, Sendable {
    case unicode
    case ascii

    public var glyphs: Glyphs { self == .unicode ? .unicode : .ascii }

    /// `text` as this charset can show it: unchanged in Unicode; in ASCII,
    /// common symbols spelled out and anything else non-ASCII shown as `?`.
    public func displayable(_ text: String) -> String {
        guard self == .ascii, !text.utf8.allSatisfy({ $0 < 0x80 }) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar.isASCII {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "°": result += "deg"
            case "µ", "μ": result += "u"
            case "²": result += "2"
            case "³": result += "3"
            case "…": result += "..."
            case "–", "—", "−": result += "-"
            case "·", "•": result += "*"
            case "‘", "’": result += "'"
            case "“", "”": result += "\""
            case "\u{300}"..."\u{36F}": continue
            default: result += "?"
            }
        }
        return result
    }
}

/// The symbols the views draw, per charset.
public struct Glyphs: Hashable, Sendable {
    public var selection: Character
    public var ellipsis: String
    public var vertical: Character
    public var horizontal: Character
    public var corner: Character
    public var leftTick: Character
    public var bottomTick: Character
    public var separator: String
    public var bullet: Character
    public var arrowUp: String
    public var arrowDown: String
    public var arrowLeft: String
    public var arrowRight: String
    public var enter: String
    public var rangeDash: String
    /// Sparkline levels, lowest first.
    public var levels: [Character]

    public static let unicode = Glyphs(
        selection: "▸", ellipsis: "…", vertical: "│", horizontal: "─", corner: "└", leftTick: "┤",
        bottomTick: "┴", separator: " · ", bullet: "●", arrowUp: "↑", arrowDown: "↓", arrowLeft: "←",
        arrowRight: "→", enter: "⏎", rangeDash: "–", levels: ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"])

    public static let ascii = Glyphs(
        selection: ">", ellipsis: "~", vertical: "|", horizontal: "-", corner: "+", leftTick: "+",
        bottomTick: "+", separator: " | ", bullet: "*", arrowUp: "^", arrowDown: "v", arrowLeft: "<",
        arrowRight: ">", enter: "Enter", rangeDash: "-", levels: ["_", ".", "-", "=", "^"])
}
