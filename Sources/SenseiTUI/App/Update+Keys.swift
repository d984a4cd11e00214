import SenseiModels

extension AppModel {
    /// Readings asked for per table page load.
    static let readingsPage = 500

    mutating func handle(_ key: Key) -> [Command] {
        // While the filter prompt is open, every printable key is text (`q` too).
        if screen == .list, filterDraft != nil { return handleFilterPrompt(key) }
        if key == .character("q") { return [.quit] }
        switch screen {
        case .help: return handleHelp(key)
        case .list: return handleList(key)
        case .detail: return handleDetail(key)
        case .alerts: return handleAlerts(key)
        case .compare: return handleCompare(key)
        }
    }

    private mutating func handleHelp(_ key: Key) -> [Command] {
        switch key {
        case .character("?"), .escape, .backspace, .enter:
            screen = screenBeforeHelp
            clampList()
            clampDetail()
        case .character("r"):
            return requestSync()
        default:
            break
        }
        return []
    }

    private mutating func handleList(_ key: Key) -> [Command] {
        let page = max(1, ListView.visibleRowCount(in: AppView.contentArea(width: width, height: height)))
        var commands: [Command] = []
        switch key {
        case .up, .character("k"): selection -= 1
        case .down, .character("j"): selection += 1
        case .pageUp: selection -= page
        case .pageDown: selection += page
        case .home: selection = 0
        case .end, .character("G"): selection = listLayout.order.count - 1
        case .shiftUp, .character("K"): return moveSelected(by: -1)
        case .shiftDown, .character("J"): return moveSelected(by: 1)
        case .enter, .right, .character("l"): return openDetail()
        case .character("r"): return requestSync()
        case .character("?"): showHelp()
        case .character("/"):
            filterDraft = filter.text
        case .escape where !filter.isEmpty:
            filter = SensorFilter()
        case .character("g"): cycleGrouping()
        case .character(" "): commands = toggleMark()
        case .character("c"): return openCompare()
        case .character("a"): return openAlerts()
        default: break
        }
        clampList()
        return commands
    }

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
        return [.loadDetail(sensorId: sensor.id, range: range)]
    }

    mutating func showHelp() {
        screenBeforeHelp = screen
        screen = .help
    }

    private mutating func handleDetail(_ key: Key) -> [Command] {
        guard var state = detail else {
            screen = .list
            return []
        }
        if let range = Self.range(for: key) { return select(range) }
        if let commands = handleZoom(key) { return commands }
        let rows = max(1, detailTableRows())
        switch key {
        case .escape, .backspace:
            if state.cursor != nil {
                state.cursor = nil
                detail = state
            } else {
                detail = nil
                screen = .list
                clampList()
            }
            return []
        case .left, .right, .home, .end:
            // One layout per key: the plot width depends on the tick labels.
            let plotWidth = detailPlotWidth()
            switch key {
            case .left: state.cursor = (state.cursor ?? plotWidth) - 1
            case .right: state.cursor = (state.cursor ?? plotWidth - 1) + 1
            case .home: state.cursor = 0
            default: state.cursor = plotWidth - 1
            }
            detail = state
            clampDetail(plotWidth: plotWidth)
            return []
        case .up, .character("k"): state.tableOffset -= 1
        case .down, .character("j"): state.tableOffset += 1
        case .pageUp: state.tableOffset -= rows
        case .pageDown: state.tableOffset += rows
        case .character("r"): return requestSync()
        case .character("?"):
            showHelp()
            return []
        default: return []
        }
        // Ask for the next page before the table runs out of loaded rows.
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

    /// 1–6 or h/d/w/m/y/a.
    static func range(for key: Key) -> TimeRange? {
        guard case .character(let character) = key else { return nil }
        switch character {
        case "1", "h": return .hour
        case "2", "d": return .day
        case "3", "w": return .week
        case "4", "m": return .month
        case "5", "y": return .year
        case "6", "a": return .all
        default: return nil
        }
    }

    private mutating func select(_ newRange: TimeRange) -> [Command] {
        guard var state = detail, newRange != range else { return [] }
        range = newRange
        state.data = nil
        state.zoom = nil
        state.tableOffset = 0
        state.isLoadingMore = false
        detail = state
        return [.loadDetail(sensorId: state.sensorId, range: newRange)]
    }
}
