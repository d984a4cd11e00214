import SenseiModels

/// Keys of the list's tools and their screens: the `/` prompt, the alerts
/// screen, compare marks and the compare chart, grouping.
extension AppModel {
    /// The compare chart: ranges, zoom and pan, back.
    mutating func handleCompare(_ key: Key) -> [Command] {
        if let newRange = Self.range(for: key) {
            guard newRange != range, var state = compare else { return [] }
            range = newRange
            state.data = nil
            state.zoom = nil
            compare = state
            return reloadDetail()
        }
        if let commands = handleZoom(key) { return commands }
        switch key {
        case .escape, .backspace, .character("c"): return closeCompare()
        case .character("r"): return requestSync()
        case .character("?"): showHelp()
        default: break
        }
        return []
    }

    /// Back to the list; the marks stay for the next compare.
    mutating func closeCompare() -> [Command] {
        compare = nil
        screen = .list
        clampList()
        return []
    }

    /// Space: marks the selected sensor for a compare chart, or unmarks it.
    mutating func toggleMark() {
        guard let sensor = selectedSensor else { return }
        if let index = marked.firstIndex(of: sensor.id) {
            marked.remove(at: index)
        } else if marked.count < 4 {
            marked.append(sensor.id)
        } else {
            errorMessage = "at most 4 sensors in a compare chart: space unmarks one"
        }
    }

    /// `c`: the marked sensors (2 to 4) on one chart.
    mutating func openCompare() -> [Command] {
        let ids = marked.filter { id in sensors.contains { $0.id == id } }
        guard ids.count >= 2 else {
            errorMessage = "mark 2 to 4 sensors with space, then press c"
            return []
        }
        compare = CompareState(sensorIds: ids)
        screen = .compare
        return reloadDetail()
    }

    /// `/`: the list filters as the text is typed; Enter keeps it, Esc clears it.
    mutating func handleFilterPrompt(_ key: Key) -> [Command] {
        guard var draft = filterDraft else { return [] }
        switch key {
        case .enter:
            filter = SensorFilter(text: draft)
            filterDraft = nil
        case .escape:
            filter = SensorFilter()
            filterDraft = nil
        case .backspace:
            if !draft.isEmpty { draft.removeLast() }
            filterDraft = draft
        case .up: selection -= 1
        case .down: selection += 1
        case .character(let character):
            draft.append(character)
            filterDraft = draft
            selection = 0
        default:
            break
        }
        clampList()
        return []
    }

    /// The alert rules: scroll, refresh, back.
    mutating func handleAlerts(_ key: Key) -> [Command] {
        let page = max(1, AlertsView.visibleRowCount(in: AppView.contentArea(width: width, height: height)))
        switch key {
        case .escape, .backspace, .character("a"):
            screen = .list
            clampList()
            return []
        case .up, .character("k"): alertsTop -= 1
        case .down, .character("j"): alertsTop += 1
        case .pageUp: alertsTop -= page
        case .pageDown: alertsTop += page
        case .character("r"): return requestSync()
        case .character("?"): showHelp()
        default: break
        }
        clampAlerts()
        return []
    }

    /// `g`: the next label key present on the sensors, then none.
    mutating func cycleGrouping() {
        let keys = ListLayout.groupKeys(of: sensors)
        let selectedId = selectedSensor?.id
        if let current = grouping, let index = keys.firstIndex(of: current) {
            grouping = index + 1 < keys.count ? keys[index + 1] : nil
        } else {
            grouping = grouping == nil ? keys.first : nil
        }
        // The same sensor stays selected wherever its group puts it.
        if let selectedId, let index = sensors.firstIndex(where: { $0.id == selectedId }),
           let position = listLayout.order.firstIndex(of: index) { selection = position }
        listTop = 0
    }
}
