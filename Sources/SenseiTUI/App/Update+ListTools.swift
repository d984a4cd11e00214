import SenseiClient
import SenseiModels

/// Keys of the list's tools and their screens: the `/` prompt, the alerts
/// screen, compare marks and the compare chart, grouping.
extension AppModel {
    /// The compare chart: ranges, zoom and pan, back.
    mutating func compareAction(_ action: KeyAction) -> [Command] {
        switch action {
        case .showRange(let newRange):
            guard newRange != range, var state = compare else { return [] }
            range = newRange
            state.data = nil
            state.zoom = nil
            compare = state
            return reloadDetail()
        case .zoomIn, .zoomOut, .pan, .resetZoom: return zoomAction(action)
        case .back: return closeCompare()
        case .refresh: return requestSync()
        case .showHelp: showHelp()
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

    /// Space: marks the selected sensor for a compare chart, or unmarks it;
    /// the marks are saved.
    mutating func toggleMark() -> [Command] {
        guard let sensor = selectedSensor else { return [] }
        if let index = marked.firstIndex(of: sensor.id) {
            marked.remove(at: index)
        } else if marked.count < 4 {
            marked.append(sensor.id)
        } else {
            errorMessage = "at most 4 sensors in a compare chart: space unmarks one"
            return []
        }
        return [.saveMarks(marked)]
    }

    /// The marks the cache kept, at start. Those of sensors gone meanwhile
    /// are dropped (and the cache told) once the list is known.
    mutating func restoreMarks(_ ids: [Int64]) -> [Command] {
        var seen = Set<Int64>()
        marked = Array(ids.filter { seen.insert($0).inserted }.prefix(4))
        let dropped = dropMarksOfGoneSensors()
        return dropped.isEmpty && marked != ids ? [.saveMarks(marked)] : dropped
    }

    /// Marks of sensors no longer listed go (a sensor deleted on the server);
    /// the marks left are saved. Nothing before the cache's list is in.
    mutating func dropMarksOfGoneSensors() -> [Command] {
        guard sensorsLoaded, !marked.isEmpty else { return [] }
        let kept = marked.filter { id in sensors.contains { $0.id == id } }
        guard kept != marked else { return [] }
        marked = kept
        return [.saveMarks(kept)]
    }

    /// `a`: the alert rules. Online, fetched again at once (the live stream
    /// keeps them current, but a stream that dropped may have missed some);
    /// offline, as the cache last had them.
    mutating func openAlerts() -> [Command] {
        screen = .alerts
        clampAlerts()
        guard serverName != nil else { return [] }
        if case .offline = connection { return [] }
        return [.fetchAlerts]
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
    mutating func filterPromptAction(_ action: KeyAction, key: Key) -> [Command] {
        guard var draft = filterDraft else { return [] }
        switch action {
        case .keepFilter:
            filter = SensorFilter(text: draft)
            filterDraft = nil
        case .clearFilter:
            filter = SensorFilter()
            filterDraft = nil
        case .deleteFilterCharacter:
            if !draft.isEmpty { draft.removeLast() }
            filterDraft = draft
        case .moveSelection(let step): selection += step
        case .typeFilter:
            guard case .character(let character) = key else { break }
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
    mutating func alertsAction(_ action: KeyAction) -> [Command] {
        let page = max(1, AlertsView.visibleRowCount(in: AppView.contentArea(width: width, height: height)))
        switch action {
        case .back:
            screen = .list
            clampList()
            return []
        case .scrollAlerts(let step): alertsTop += step
        case .pageAlerts(let pages): alertsTop += pages * page
        case .refresh: return requestSync()
        case .showHelp: showHelp()
        default: break
        }
        clampAlerts()
        return []
    }

    /// `g`: the next label key, best split first (`groupKeys`, ranked again
    /// here for labels changed since the list came), then none.
    mutating func cycleGrouping() {
        let selectedId = selectedSensor?.id
        groupKeys = ListLayout.groupKeys(of: sensors)
        grouping = nextGrouping
        // The same sensor stays selected wherever its group puts it.
        if let selectedId, let index = sensors.firstIndex(where: { $0.id == selectedId }),
           let position = listLayout.order.firstIndex(of: index) { selection = position }
        listTop = 0
    }
}
