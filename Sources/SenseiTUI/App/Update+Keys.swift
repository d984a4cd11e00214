import SenseiClient
import SenseiModels

extension AppModel {
    /// Readings asked for per table page load.
    static let readingsPage = 500

    /// Where keys act now.
    var keyContext: KeyContext {
        switch screen {
        case .list: filterDraft == nil ? .list : .filterPrompt
        case .detail: .detail
        case .compare: .compare
        case .alerts: .alerts
        case .help: .help
        }
    }

    /// A key, through the key table (`KeyBinding.all`): a key it does not
    /// hold here does nothing.
    mutating func handle(_ key: Key) -> [Command] {
        let context = keyContext
        let action = KeyBinding.action(for: key, in: context)
        if action == .quit { return [.quit] }
        // A detail with nothing to show gives way to the list at any key.
        if context == .detail, detail == nil {
            screen = .list
            return []
        }
        guard let action else { return [] }
        switch context {
        case .list, .emptyList: return listAction(action)
        case .filterPrompt: return filterPromptAction(action, key: key)
        case .detail: return detailAction(action)
        case .compare: return compareAction(action)
        case .alerts: return alertsAction(action)
        case .help: return helpAction(action)
        }
    }

    private mutating func helpAction(_ action: KeyAction) -> [Command] {
        switch action {
        case .back:
            screen = screenBeforeHelp
            clampList()
            clampDetail()
        case .refresh:
            return requestSync()
        default:
            break
        }
        return []
    }

    private mutating func listAction(_ action: KeyAction) -> [Command] {
        let page = max(1, ListView.visibleRowCount(in: AppView.contentArea(width: width, height: height)))
        var commands: [Command] = []
        switch action {
        case .moveSelection(let step): selection += step
        case .pageSelection(let pages): selection += pages * page
        case .selectFirst: selection = 0
        case .selectLast: selection = listLayout.order.count - 1
        case .moveSensor(let step): return moveSelected(by: step)
        case .open: return openDetail()
        case .refresh: return requestSync()
        case .showHelp: showHelp()
        case .startFilter: filterDraft = filter.text
        case .clearFilter: filter = SensorFilter()
        case .cycleGrouping: cycleGrouping()
        case .toggleMark: commands = toggleMark()
        case .openCompare: return openCompare()
        case .openAlerts: return openAlerts()
        default: return []
        }
        clampList()
        return commands
    }

    /// Swaps the selected sensor with its neighbour `delta` away (within
    /// its group); the new order is saved.
    private mutating func moveSelected(by delta: Int) -> [Command] {
        let layout = listLayout
        let target = selection + delta
        guard layout.order.indices.contains(selection), layout.order.indices.contains(target) else { return [] }
        let (from, to) = (layout.order[selection], layout.order[target])
        if let key = grouping, sensors[from].sensor.labels[key] != sensors[to].sensor.labels[key] { return [] }
        sensors.swapAt(from, to)
        selection = target
        clampList()
        return [.saveOrder(sensors.map(\.id))]
    }

    private mutating func openDetail() -> [Command] {
        guard let sensor = selectedSensor else { return [] }
        detail = DetailState(sensorId: sensor.id)
        screen = .detail
        return [.loadDetail(sensorId: sensor.id, range: range)] + loadUsage()
    }

    mutating func showHelp() {
        screenBeforeHelp = screen
        screen = .help
    }

    private mutating func detailAction(_ action: KeyAction) -> [Command] {
        guard var state = detail else { return [] }
        switch action {
        case .showRange(let range): return select(range)
        case .zoomIn, .zoomOut, .pan, .resetZoom: return showsUsage ? [] : zoomAction(action)
        case .toggleUsage: return toggleUsage()
        case .back:
            if state.cursor != nil {
                state.cursor = nil
                detail = state
            } else {
                detail = nil
                screen = .list
                clampList()
            }
            return []
        case .moveCursor, .cursorToStart, .cursorToEnd:
            if showsUsage {
                moveUsageCursor(action)
                return []
            }
            // One layout per key: the plot width depends on the tick labels.
            let plotWidth = detailPlotWidth()
            switch action {
            // A hidden cursor shows at the newest end.
            case .moveCursor(let step): state.cursor = (state.cursor ?? (step < 0 ? plotWidth : plotWidth - 1)) + step
            case .cursorToStart: state.cursor = 0
            default: state.cursor = plotWidth - 1
            }
            detail = state
            clampDetail(plotWidth: plotWidth)
            return []
        case .scrollReadings(let step): state.tableOffset += step
        case .pageReadings(let pages): state.tableOffset += pages * max(1, detailTableRows())
        case .refresh: return requestSync()
        case .showHelp:
            showHelp()
            return []
        default: return []
        }
        // Ask for the next page before the table runs out of loaded rows.
        let rows = max(1, detailTableRows())
        var commands: [Command] = []
        if let data = state.data, !state.isLoadingMore, data.readings.count < data.totalReadings,
           state.tableOffset + 2 * rows >= data.readings.count {
            let before = data.readings.last?.timestamp ?? data.end.adding(milliseconds: 1)
            state.isLoadingMore = true
            // From the window shown, a zoom's too: the table ends where its chart does.
            commands.append(.loadReadings(sensorId: state.sensorId, from: data.start, before: before,
                                          limit: Self.readingsPage))
        }
        detail = state
        clampDetail()
        return commands
    }

    private mutating func select(_ newRange: TimeRange) -> [Command] {
        guard var state = detail, newRange != range else { return [] }
        range = newRange
        state.data = nil
        state.zoom = nil
        state.tableOffset = 0
        state.isLoadingMore = false
        state.usage = nil
        if showsUsage { state.cursor = nil }
        detail = state
        return [.loadDetail(sensorId: state.sensorId, range: newRange)] + loadUsage()
    }
}
