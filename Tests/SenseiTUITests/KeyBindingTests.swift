import Testing
import SenseiModels
@testable import SenseiTUI
@testable import SenseiClient

/// The key table (`KeyBinding.all`) against the three things it drives:
/// every binding is told of (in the help, or where it has none, in the
/// status bar), and the handler acts on the table's keys and on no other.
@Suite struct KeyBindingTests {
    /// Every key the terminal layer can send: the named ones and printable ASCII.
    static let everyKey: [Key] = [.up, .down, .left, .right, .shiftUp, .shiftDown, .pageUp, .pageDown, .home, .end,
                                  .enter, .escape, .backspace, .tab]
        + (32...126).map { .character(Character(Unicode.Scalar(UInt8($0)))) }

    static let contexts: [KeyContext] = [.list, .filterPrompt, .detail, .compare, .alerts, .help]

    /// Models in `context`, in states where each of its keys has something to
    /// do: a key that acts acts in at least one of them.
    static func models(in context: KeyContext) -> [AppModel] {
        func press(_ model: AppModel, _ keys: Key...) -> AppModel {
            var model = model
            for key in keys { _ = model.update(.keyPressed(key)) }
            return model
        }
        // Labelled (so `g` groups), the middle sensor selected, a filter kept
        // that shows all of them (so Esc has one to clear).
        var list = ListFilterGroupAlertsTests.model()
        list.filter = SensorFilter(text: "o")
        list.selection = 1
        let manyAlerts = (1...30).map { id in
            AlertStatus(id: Int64(id), name: "Rule \(id)", sensor: "door", condition: "above", threshold: 0.5,
                        state: .firing, since: Fixture.now, value: 1)
        }
        var alerts = Fixture.model(height: 10)
        _ = alerts.update(.alertsLoaded(manyAlerts))
        switch context {
        case .list, .emptyList:
            return [list]
        case .filterPrompt:
            return [press(list, "/")]
        case .detail:
            let detail = Fixture.detailModel()
            // A power sensor's, for `u` (its usage bars).
            return [detail, Fixture.detailModel(range: .hour), press(detail, "+", "<", .pageDown),
                    Fixture.detailModel(summary: DetailUsageTests.plug)]
        case .compare:
            let compare = CompareTests.compared()
            return [compare, press(compare, "1"), press(compare, "+", "<")]
        case .alerts:
            return [press(alerts, "a"), press(alerts, "a", .pageDown)]
        case .help:
            return [press(Fixture.model(), "?")]
        }
    }

    static func acts(_ key: Key, on model: AppModel) -> Bool {
        var next = model
        let commands = next.update(.keyPressed(key))
        return next != model || !commands.isEmpty
    }

    @Test(arguments: contexts)
    func theFixturesAreInTheirContext(_ context: KeyContext) {
        for model in Self.models(in: context) { #expect(model.keyContext == context) }
    }

    @Test(arguments: contexts)
    func everyBoundKeyActs(_ context: KeyContext) {
        let models = Self.models(in: context)
        for key in Self.everyKey where KeyBinding.action(for: key, in: context) != nil {
            #expect(models.contains { Self.acts(key, on: $0) }, "\(key) in \(context)")
        }
    }

    @Test(arguments: contexts)
    func noOtherKeyDoesAnything(_ context: KeyContext) {
        for model in Self.models(in: context) {
            for key in Self.everyKey where KeyBinding.action(for: key, in: context) == nil {
                #expect(!Self.acts(key, on: model), "\(key) in \(context)")
            }
        }
    }

    @Test(arguments: contexts)
    func noKeyIsBoundTwice(_ context: KeyContext) {
        var seen: Set<Key> = []
        for binding in KeyBinding.all where binding.contexts.contains(context) {
            for key in binding.actions.flatMap(\.key) {
                #expect(seen.insert(key).inserted, "\(key) in \(context)")
            }
        }
    }

    /// On a screen tall enough for all of it, each help row is in its section.
    @Test(arguments: [Charset.unicode, .ascii])
    func everyBindingWithHelpIsInTheHelp(_ charset: Charset) {
        var model = Fixture.model(width: 80, height: 40, charset: charset)
        _ = model.update(.keyPressed("?"))
        let lines = AppView.render(model).lines
        let titles = HelpSection.allCases.map { section in lines.firstIndex { $0 == " " + section.rawValue } }
        for binding in KeyBinding.all {
            guard let help = binding.help, let section = HelpSection.allCases.firstIndex(of: help.section),
                  let start = titles[section] else { continue }
            let end = section + 1 < titles.count ? titles[section + 1] ?? lines.count : lines.count
            let label = charset.glyphs.keyLabel(help.label)
            #expect(lines[start..<end].contains { $0.hasPrefix("   " + label + " ") && $0.hasSuffix("  " + help.meaning) },
                    "\(label) \(help.meaning)")
        }
        #expect(!titles.contains(nil))
    }

    /// A binding the help does not list (the compare, alerts and help
    /// screens', the `/` prompt's) shows its hint wherever it applies.
    @Test func everyBindingWithoutHelpIsHinted() {
        for binding in KeyBinding.all where binding.help == nil {
            #expect(binding.hint != nil)
            for context in binding.contexts {
                for model in Self.models(in: context) {
                    let hint = binding.hint.map { $0.text(model) } ?? "?"
                    #expect(StatusBar.hints(model).first?.contains(hint) == true, "\(hint) in \(context)")
                }
            }
        }
    }
}
