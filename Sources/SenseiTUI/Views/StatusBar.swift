import SenseiModels

/// The last row: connection state (online, or offline since when), the last
/// sync, the latest error, and key hints for the screen when there is room.
public enum StatusBar {
    public static func render(_ model: AppModel, into grid: inout CellGrid, area: Rect) {
        guard !area.isEmpty else { return }
        let row = area.row(0)
        grid.fill(row)
        if model.screen == .list, let draft = model.filterDraft {
            renderPrompt(draft, model: model, into: &grid, row: row)
            return
        }
        let glyphs = model.charset.glyphs
        var parts: [(String, CellStyle)] = [connection(model)]
        if let note = liveNote(model) { parts.append(note) }
        if let error = model.errorMessage {
            parts.append((model.charset.displayable(error), CellStyle(bold: true, role: .error)))
        } else {
            parts.append((sync(model), CellStyle(dim: true)))
        }
        var x = row.x
        for (index, (text, style)) in parts.enumerated() {
            if index > 0 {
                // A separator with no room for a few cells after it only adds noise.
                guard row.right - x >= glyphs.separator.count + 4 else { break }
                x = grid.write(glyphs.separator, x: x, y: row.y, style: CellStyle(dim: true), clip: row)
            }
            let room = Rect(x: x, y: row.y, width: row.right - x, height: 1)
            grid.write(text, in: room, style: style, ellipsis: glyphs.ellipsis)
            x = min(row.right, x + text.count)
        }
        // Hints only where they fit whole, after two spaces.
        for hint in hints(model) where x + 2 + hint.count <= row.right {
            grid.write(hint, in: row, alignment: .right, style: CellStyle(dim: true))
            break
        }
    }

    /// The `/` prompt in place of the bar: `/kitch▏`, and what Enter and Esc do.
    static func renderPrompt(_ draft: String, model: AppModel, into grid: inout CellGrid, row: Rect) {
        let cursor: Character = model.charset == .ascii ? "_" : "▏"
        let hint = hints(model).first ?? ""
        let text = "/" + model.charset.displayable(draft)
        let room = row.width - 1 - (row.width >= text.count + 1 + hint.count + 2 ? hint.count + 2 : 0)
        // The end of a long filter stays in view: it is where the typing is.
        let shown = text.count > room ? String(text.suffix(max(0, room))) : text
        let x = grid.write(shown, x: row.x, y: row.y, style: CellStyle(bold: true), clip: row)
        grid.set(cursor, x: x, y: row.y, style: CellStyle(bold: true))
        if row.width >= text.count + 1 + hint.count + 2 {
            grid.write(hint, in: row, alignment: .right, style: CellStyle(dim: true))
        }
    }

    static func connection(_ model: AppModel) -> (String, CellStyle) {
        switch model.connection {
        case .connecting:
            return (model.isSyncing ? "connecting" : "not connected", CellStyle(dim: true))
        case .online:
            return ("\(model.charset.glyphs.bullet) online", CellStyle(role: .ok))
        case .offline(let since):
            return ("offline since " + moment(since, model: model), CellStyle(bold: true, role: .warning))
        }
    }

    /// Online: `live` while the stream follows the server, else the
    /// periodic sync stands in for it and the bar says so.
    static func liveNote(_ model: AppModel) -> (String, CellStyle)? {
        guard case .online = model.connection else { return nil }
        switch model.live {
        case .off: return nil
        case .streaming: return ("live", CellStyle(bold: true, role: .ok))
        case .dropped:
            return ("not live, syncing every " + Format.duration(milliseconds: model.refreshInterval),
                    CellStyle(role: .warning))
        }
    }

    static func sync(_ model: AppModel) -> String {
        if model.isSyncing {
            // Progress only while there is some to show: a quick sync just says syncing.
            guard let progress = model.syncProgress, progress.total > 1 else { return "syncing" }
            return "syncing \(progress.done)/\(progress.total)"
        }
        guard let last = model.lastSync else { return "never synced" }
        return "synced " + Format.age(of: last, now: model.now)
    }

    /// A time of today as "14:02", an earlier one as "Jan 08 14:02".
    static func moment(_ time: Timestamp, model: AppModel) -> String {
        let then = LocalTime(time, utcOffsetSeconds: model.utcOffsetSeconds)
        let today = LocalTime(model.now, utcOffsetSeconds: model.utcOffsetSeconds)
        if then.year == today.year && then.month == today.month && then.day == today.day {
            return Format.time(time, utcOffsetSeconds: model.utcOffsetSeconds, seconds: false)
        }
        return Format.monthDayTime(time, utcOffsetSeconds: model.utcOffsetSeconds, seconds: false)
    }

    /// What `g` does next: `g by room` (the key it groups by next, best
    /// split first), `g ungroup` after the last; `g group` when no sensor
    /// has labels yet.
    static func groupHint(_ model: AppModel) -> String {
        guard !model.groupKeys.isEmpty else { return "g group" }
        return model.nextGrouping.map { "g by " + model.charset.displayable($0) } ?? "g ungroup"
    }

    /// `u usage` on a counter's or power sensor's line chart, `u chart` over
    /// its bars; nothing where bars do not apply (a temperature).
    static func usageHint(_ model: AppModel) -> String {
        guard model.detailShownSensor?.hasUsage == true else { return "" }
        return model.showsUsage ? "u chart" : "u usage"
    }

    /// Where the hints are those of: the list with no sensors has fewer.
    static func hintContext(_ model: AppModel) -> KeyContext {
        let context = model.keyContext
        return context == .list && model.sensors.isEmpty ? .emptyList : context
    }

    /// The key table's hints for the screen, longest first: each drops the
    /// highest tier left. The bar shows the first that fits.
    static func hints(_ model: AppModel) -> [String] {
        let context = hintContext(model)
        let hinted = KeyBinding.all.compactMap { binding in
            binding.hint.flatMap { hint in hint.tiers[context].map { (tier: $0, text: hint.text(model)) } }
        }.filter { !$0.text.isEmpty }
        guard let top = hinted.map(\.tier).max() else { return [] }
        return (0...top).reversed().map { tier in
            hinted.filter { $0.tier <= tier }.map(\.text).joined(separator: "  ")
        }
    }
}
