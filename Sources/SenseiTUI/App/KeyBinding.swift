/// Where a key binding applies: a screen, or the `/` prompt over the list.
enum KeyContext: Hashable, CaseIterable, Sendable {
    case list, filterPrompt, detail, compare, alerts, help
    /// The list before any sensor is in. Keys there are the list's; only
    /// the status bar's hints differ, so it appears in hint tiers alone.
    case emptyList
}

/// A group of the `?` help, in the order shown.
enum HelpSection: String, CaseIterable, Sendable {
    case list = "Sensor list"
    case detail = "Sensor detail"
    case anywhere = "Anywhere"
}

/// A row of the `?` help. Several bindings may share one (`space  c`).
/// Labels are written with Unicode arrows and ⏎; `Glyphs.keyLabel` puts the
/// charset's stand-ins in.
struct KeyHelp: Hashable, Sendable {
    var section: HelpSection
    var label: String
    var meaning: String

    init(_ section: HelpSection, _ label: String, _ meaning: String) {
        self.section = section
        self.label = label
        self.meaning = meaning
    }
}

/// A binding's hint in the status bar, and how readily it shows per
/// context: the bar drops the highest tier first when the row is short,
/// and never drops tier 0.
struct KeyHint: Sendable {
    var text: @Sendable (AppModel) -> String
    var tiers: [KeyContext: Int]

    init(_ text: String, _ tiers: [KeyContext: Int]) {
        self.text = { $0.charset.glyphs.keyLabel(text) }
        self.tiers = tiers
    }

    /// A hint that depends on the model (`g by room`).
    init(_ text: @escaping @Sendable (AppModel) -> String, _ tiers: [KeyContext: Int]) {
        self.text = text
        self.tiers = tiers
    }
}

/// Keys and what they do in some contexts, with the help row and the hint
/// that tell of them: one value drives the key handler, the help screen and
/// the status bar, as Bubble Tea's `key.Binding` does. The table is
/// `KeyBinding.all`.
struct KeyBinding: Sendable {
    var contexts: Set<KeyContext>
    var help: KeyHelp?
    var hint: KeyHint?
    /// In order; the first pair holding the key wins.
    var actions: KeyValuePairs<[Key], KeyAction>
    /// What any other printable key does (the `/` prompt's text).
    var otherCharacters: KeyAction?

    init(_ contexts: Set<KeyContext>, help: KeyHelp? = nil, hint: KeyHint? = nil,
         otherCharacters: KeyAction? = nil, _ actions: KeyValuePairs<[Key], KeyAction>) {
        self.contexts = contexts
        self.help = help
        self.hint = hint
        self.actions = actions
        self.otherCharacters = otherCharacters
    }

    /// What `key` does in `context`, if anything.
    func action(for key: Key, in context: KeyContext) -> KeyAction? {
        guard contexts.contains(context) else { return nil }
        if let pair = actions.first(where: { $0.key.contains(key) }) { return pair.value }
        if case .character = key { return otherCharacters }
        return nil
    }

    /// The action of the first binding that holds `key` in `context`.
    static func action(for key: Key, in context: KeyContext) -> KeyAction? {
        for binding in all {
            if let action = binding.action(for: key, in: context) { return action }
        }
        return nil
    }
}

extension Glyphs {
    /// A key label written with Unicode arrows and ⏎, in this charset's glyphs.
    func keyLabel(_ text: String) -> String {
        guard self != .unicode else { return text }
        var result = ""
        for character in text {
            switch character {
            case "↑": result += arrowUp
            case "↓": result += arrowDown
            case "←": result += arrowLeft
            case "→": result += arrowRight
            case "⏎": result += enter
            default: result.append(character)
            }
        }
        return result
    }
}
