import CNcursesw

#if canImport(Glibc)
import Glibc
#endif

/// The only code that talks to ncurses: it sets the terminal up, draws a
/// `CellGrid` by writing only the cells that changed since the last frame,
/// decodes keys, and restores the terminal on `close`.
final class Terminal {
    enum Event: Equatable {
        case key(Key)
        case resized(width: Int, height: Int)
        /// Ctrl-L: the screen was invalidated and must be drawn whole again.
        case repaint
    }

    let charset: Charset
    let hasColors: Bool
    private var previous: CellGrid?
    private var isOpen = true
    /// ncurses' `stdscr`, as `initscr` returns it (the global is not concurrency-safe to read).
    private let screen: UnsafeMutablePointer<WINDOW>

    /// Call `setlocale` first (the runtime does): ncurses reads the locale once.
    init() {
        charset = Self.localeIsUTF8() ? .unicode : .ascii
        // Escape alone should act at once, not after ncurses' default second.
        set_escdelay(25)
        screen = initscr()
        cbreak()
        noecho()
        nonl()
        keypad(screen, true)
        curs_set(0)
        hasColors = has_colors()
        if hasColors {
            start_color()
            use_default_colors()
            for role in ColorRole.allCases where role != .none {
                init_pair(Self.pair(for: role), Self.color(for: role), -1)
            }
        }
    }

    static func localeIsUTF8() -> Bool {
        guard let codeset = nl_langinfo(nl_item(CODESET)) else { return false }
        let name = String(cString: codeset).uppercased()
        return name == "UTF-8" || name == "UTF8"
    }

    var size: (width: Int, height: Int) {
        (Int(getmaxx(screen)), Int(getmaxy(screen)))
    }

    /// Waits up to `milliseconds` for a key.
    func nextEvent(timeout milliseconds: Int32) -> Event? {
        wtimeout(screen, milliseconds)
        var input: wint_t = 0
        let result = wget_wch(screen, &input)
        if result == KEY_CODE_YES {
            if Int32(input) == KEY_RESIZE {
                previous = nil
                let (width, height) = size
                return .resized(width: width, height: height)
            }
            return KeyDecoding.functionKey(Int32(input)).map(Event.key)
        }
        guard result == OK else { return nil }
        if input == KeyDecoding.ctrlL {
            invalidate()
            return .repaint
        }
        return KeyDecoding.character(UInt32(input)).map(Event.key)
    }

    /// Draws `grid`, touching only the cells that differ from the last frame.
    func draw(_ grid: CellGrid) {
        let full = previous.map { $0.width != grid.width || $0.height != grid.height } ?? true
        if full { werase(screen) }
        for y in 0..<grid.height {
            for x in 0..<grid.width {
                let cell = grid[x, y]
                if !full, let previous, previous[x, y] == cell { continue }
                put(cell, x: x, y: y)
            }
        }
        previous = grid
        wrefresh(screen)
    }

    /// Forces the next `draw` to repaint everything (after a resize or Ctrl-L).
    func invalidate() {
        previous = nil
        clearok(screen, true)
    }

    func close() {
        guard isOpen else { return }
        isOpen = false
        curs_set(1)
        endwin()
    }

    private func put(_ cell: Cell, x: Int, y: Int) {
        var characters: [wchar_t] = cell.character.unicodeScalars.prefix(4).map {
            charset == .ascii && !$0.isASCII ? wchar_t(UInt8(ascii: "?")) : wchar_t(bitPattern: $0.value)
        }
        characters.append(0)
        var attributes: attr_t = 0
        if cell.style.bold { attributes |= sensei_attr_bold() }
        if cell.style.dim { attributes |= sensei_attr_dim() }
        if cell.style.reverse { attributes |= sensei_attr_reverse() }
        if cell.style.underline { attributes |= sensei_attr_underline() }
        let pair = hasColors && cell.style.role != .none ? Self.pair(for: cell.style.role) : 0
        var complex = cchar_t()
        setcchar(&complex, characters, attributes, pair, nil)
        // The bottom-right cell scrolls some terminals; ncurses reports ERR, harmless.
        mvadd_wch(Int32(y), Int32(x), &complex)
    }

    private static func pair(for role: ColorRole) -> Int16 { Int16(role.rawValue) }

    private static func color(for role: ColorRole) -> Int16 {
        switch role {
        case .none: -1
        case .accent: Int16(COLOR_CYAN)
        case .axis: Int16(COLOR_BLUE)
        case .ok: Int16(COLOR_GREEN)
        case .warning: Int16(COLOR_YELLOW)
        case .error: Int16(COLOR_RED)
        case .stale: Int16(COLOR_MAGENTA)
        case .series2: Int16(COLOR_YELLOW)
        case .series3: Int16(COLOR_MAGENTA)
        case .series4: Int16(COLOR_GREEN)
        }
    }
}

/// ncurses key codes to `Key`s; pure, so it is tested without a terminal.
enum KeyDecoding {
    static func functionKey(_ code: Int32) -> Key? {
        switch code {
        case KEY_UP: .up
        case KEY_DOWN: .down
        case KEY_LEFT: .left
        case KEY_RIGHT: .right
        case KEY_SR: .shiftUp    // xterm's shift-up
        case KEY_SF: .shiftDown  // xterm's shift-down
        case KEY_PPAGE: .pageUp
        case KEY_NPAGE: .pageDown
        case KEY_HOME: .home
        case KEY_END: .end
        case KEY_ENTER: .enter
        case KEY_BACKSPACE: .backspace
        default: nil
        }
    }

    static let ctrlL: UInt32 = 12

    static func character(_ code: UInt32) -> Key? {
        switch code {
        case 10, 13: return .enter
        case 27: return .escape
        case 8, 127: return .backspace
        case 9: return .tab
        case ctrlL: return nil  // a repaint, not a key (`Terminal.nextEvent`)
        default:
            guard code >= 32, let scalar = Unicode.Scalar(code) else { return nil }
            return .character(Character(scalar))
        }
    }
}
