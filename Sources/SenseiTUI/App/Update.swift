import SenseiModels

/// The next model and the I/O to run, for one message: the dashboard's only
/// state transition. Pure, so every key and every sync outcome is testable.
public func update(_ model: AppModel, _ msg: Msg) -> (AppModel, [Command]) {
    var next = model
    let commands = next.update(msg)
    return (next, commands)
}

extension AppModel {
    /// `update(_:_:)` in place.
    public mutating func update(_ msg: Msg) -> [Command] {
        switch msg {
        case .keyPressed(let key):
            return handle(key)
        case .resized(let width, let height):
            self.width = max(0, width)
            self.height = max(0, height)
            clampList()
            clampDetail()
            return []
        case .tick(let time):
            now = max(now, time)
            return syncIfDue()
        case .sensorsLoaded(let incoming):
            var commands = receive(incoming)
            if liveReloadInFlight {
                liveReloadInFlight = false
                if liveReloadPending { commands += reloadForLive() }
            }
            return commands
        case .recentLoaded(let loaded):
            recentInFlight.subtract(loaded.keys)
            recent.merge(loaded) { _, new in new }
            return []
        case .sensorsRefreshed(let fresh):
            var commands: [Command] = []
            if liveReloadInFlight {
                liveReloadInFlight = false
                if liveReloadPending { commands += reloadForLive() }
            }
            refresh(fresh)
            return commands
        case .detailLoaded(let data):
            guard var state = detail, state.sensorId == data.sensor.id, data.range == range,
                  state.zoom.map({ data.zoomed && data.start.milliseconds == $0.lowerBound
                                     && data.end.milliseconds == $0.upperBound }) ?? !data.zoomed
            else { return [] }
            state.data = data
            state.isLoadingMore = false
            detail = state
            clampDetail()
            return []
        case .usageLoaded(let sensorId, let range, let usage, let fetching):
            receiveUsage(sensorId: sensorId, range: range, usage: usage, fetching: fetching)
            return []
        case .compareLoaded(let details):
            guard var state = compare, details.map(\.sensor.id) == state.sensorIds,
                  details.allSatisfy({ $0.range == range }),
                  details.allSatisfy({ data in state.zoom.map { data.zoomed && data.start.milliseconds == $0.lowerBound
                                        && data.end.milliseconds == $0.upperBound } ?? !data.zoomed })
            else {
                // A sensor gone from the cache: compare what is left, or go back.
                if let state = compare, details.count < state.sensorIds.count, screen == .compare {
                    return closeCompare()
                }
                return []
            }
            state.data = details
            compare = state
            return []
        case .readingsLoaded(let sensorId, let from, let readings):
            // A page of another window (the range or zoom changed meanwhile) is dropped.
            guard var state = detail, state.sensorId == sensorId, var data = state.data, data.start == from else {
                return []
            }
            let oldest = data.readings.last?.timestamp
            data.readings += readings.filter { oldest == nil || $0.timestamp < oldest! }
            // An empty page means the cache has no more, whatever the count said.
            if readings.isEmpty { data.totalReadings = data.readings.count }
            state.data = data
            state.isLoadingMore = false
            detail = state
            clampDetail()
            return []
        case .syncProgress(let done, let total):
            syncProgress = SyncProgress(done: done, total: total)
            // The list shows as soon as the sensors are in, before any history;
            // then every few sensors as their readings arrive (every 5 %
            // of a big house: each load reads the whole list).
            return done == 0 || done == total || done % max(5, total / 20) == 0 ? [.loadSensors] : []
        case .syncFinished(let time, _, let changed):
            now = max(now, time)
            isSyncing = false
            syncProgress = nil
            lastSyncAttempt = time
            lastSync = time
            connection = .online
            errorMessage = nil
            // A quiet house's sync every 30 s reads nothing back from the cache.
            // Usage moves on with time even when no reading came: asked each sync.
            return (changed || !sensorsLoaded ? [.loadSensors] + reloadDetail() : []) + loadUsage()
        case .syncFailed(let failure, let time):
            now = max(now, time)
            isSyncing = false
            syncProgress = nil
            lastSyncAttempt = time
            if failure.isOffline {
                if case .offline = connection {} else { connection = .offline(since: time) }
            } else {
                // The server answered, so it is reachable; the message says what is wrong.
                connection = .online
                errorMessage = failure.message
            }
            return []
        case .cacheFailed(let message):
            errorMessage = "cache: \(message)"
            return []
        case .liveOpened(let time):
            now = max(now, time)
            live = .streaming
            // What committed while the stream was down.
            return requestSync()
        case .liveReadings(let ids, let unknownSensor):
            var commands: [Command] = []
            liveChanged.formUnion(ids)
            // Their sparklines are read again, if on screen.
            for id in ids { recent[id]?.asOf = Timestamp(milliseconds: 0) }
            if liveReloadInFlight { liveReloadPending = true } else { commands = reloadForLive() }
            if unknownSensor { commands += requestSync() }
            return commands
        case .alertsLoaded(let alerts):
            receiveAlerts(alerts)
            return []
        case .alertChanged(let change):
            receiveAlertChange(change)
            return []
        case .marksLoaded(let ids):
            return restoreMarks(ids)
        case .liveDropped(let reason, let time):
            now = max(now, time)
            live = .dropped(reason)
            return []
        case .interrupted:
            return [.quit]
        }
    }

    /// The sensors live readings moved on, and the detail on screen, read
    /// again: one reload at a time, however fast they come, and only of the
    /// sensors that changed.
    mutating func reloadForLive() -> [Command] {
        liveReloadPending = false
        liveReloadInFlight = true
        let ids = liveChanged
        liveChanged = []
        guard !ids.isEmpty else {
            liveReloadInFlight = false
            return []
        }
        let shownChanged = detail.map { ids.contains($0.sensorId) } ?? false
            || compare.map { !ids.isDisjoint(with: $0.sensorIds) } ?? false
        return [.refreshSensors(ids: ids)] + (shownChanged ? reloadDetail() : [])
    }

    /// Puts sensors read again in their places; sensors the list does not
    /// hold are left to the next full load.
    mutating func refresh(_ fresh: [SensorSummary]) {
        guard !fresh.isEmpty else { return }
        let places = Dictionary(sensors.indices.map { (sensors[$0].id, $0) }, uniquingKeysWith: { first, _ in first })
        var updated = sensors
        for summary in fresh {
            guard let place = places[summary.id] else { continue }
            updated[place].sensor = summary.sensor
        }
        guard updated != sensors else { return }
        let selectedId = selectedSensor?.id
        sensors = updated
        if let selectedId, let index = places[selectedId],
           let position = listLayout.order.firstIndex(of: index) { selection = position }
        clampList()
    }

    /// Reads the sparklines of the rows on screen that have none yet, or one
    /// older than the current minute or than a live reading: nothing while
    /// nothing changes, a screenful at most when it does.
    /// The runtime asks after each message, so `update` stays about the
    /// message itself.
    public mutating func loadRecentOnScreen() -> [Command] {
        guard screen == .list, !sensors.isEmpty else { return [] }
        let visible = max(1, ListView.visibleRowCount(in: AppView.contentArea(width: width, height: height)))
        let minute = now.milliseconds.floorDivided(by: 60_000).0
        let shown = listLayout.sensors(onRows: listTop..<(listTop + visible)).map { sensors[$0].id }
        var wanted: [Int64] = []
        for id in shown {
            guard !recentInFlight.contains(id) else { continue }
            if let known = recent[id], known.asOf.milliseconds.floorDivided(by: 60_000).0 >= minute { continue }
            wanted.append(id)
        }
        guard !wanted.isEmpty else { return [] }
        recentInFlight.formUnion(wanted)
        // Those far off screen are forgotten: memory stays a few screens' worth.
        if recent.count > 4 * visible + 64 {
            let kept = Set(shown)
            recent = recent.filter { kept.contains($0.key) }
        }
        return [.loadRecent(sensorIds: wanted)]
    }

    /// The detail on screen read again: its range, or its zoomed window; and
    /// the compare chart, when open.
    func reloadDetail() -> [Command] {
        var commands: [Command] = []
        if let compare { commands.append(.loadCompare(sensorIds: compare.sensorIds, range: range, window: compare.zoom)) }
        guard let detail else { return commands }
        return commands + reloadOwnDetail(detail)
    }

    private func reloadOwnDetail(_ detail: DetailState) -> [Command] {
        guard let window = detail.zoom else { return [.loadDetail(sensorId: detail.sensorId, range: range)] }
        return [.loadZoomedDetail(sensorId: detail.sensorId, range: range, window: window)]
    }

    /// Auto-refresh: every `refreshInterval`, or `offlineRetryInterval` while offline.
    mutating func syncIfDue() -> [Command] {
        guard let last = lastSyncAttempt else { return requestSync() }
        var interval = refreshInterval
        if case .offline = connection { interval = min(interval, offlineRetryInterval) }
        return now.milliseconds - last.milliseconds >= interval ? requestSync() : []
    }

    /// Takes the cache's list but keeps the user's order as this model knows
    /// it: a reorder saved a moment ago may not have reached the cache when
    /// the list was read. New sensors join at the end; deleted ones go.
    mutating func receive(_ incoming: [SensorSummary]) -> [Command] {
        let selectedId = selectedSensor?.id
        var merged = incoming
        var commands: [Command] = []
        if sensorsLoaded {
            let byId = Dictionary(incoming.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            let known = Set(sensors.map(\.id))
            merged = sensors.compactMap { byId[$0.id] } + incoming.filter { !known.contains($0.id) }
            if merged.map(\.id) != incoming.map(\.id) { commands.append(.saveOrder(merged.map(\.id))) }
        }
        let previous = sensors
        sensors = merged
        sensorsLoaded = true
        // The cache changed under the list (a sync): the rows on screen read
        // their sparklines again.
        for id in recent.keys { recent[id]?.asOf = Timestamp(milliseconds: 0) }
        updateGroupKeys(previous: previous)
        commands += dropMarksOfGoneSensors()
        if let selectedId, let index = sensors.firstIndex(where: { $0.id == selectedId }),
           let position = listLayout.order.firstIndex(of: index) { selection = position }
        if let detail, !sensors.contains(where: { $0.id == detail.sensorId }) {
            // The sensor was deleted on the server.
            self.detail = nil
            if screen == .detail { screen = .list }
            if screenBeforeHelp == .detail { screenBeforeHelp = .list }
        }
        clampList()
        return commands
    }

    /// Keeps the selection on a shown sensor and its row in view (with its
    /// group's header when that fits).
    mutating func clampList() {
        let layout = listLayout
        selection = layout.order.isEmpty ? 0 : min(max(0, selection), layout.order.count - 1)
        let visible = max(1, ListView.visibleRowCount(in: AppView.contentArea(width: width, height: height)))
        let row = layout.row(ofSensorAt: selection) ?? 0
        // The header above the first sensor of a group comes into view with it.
        var top = row
        if row > 0, case .header = layout.rows[row - 1] { top = row - 1 }
        if top < listTop { listTop = top }
        if row >= listTop + visible { listTop = row - visible + 1 }
        listTop = max(0, min(listTop, layout.rows.count - visible))
    }

    /// Keeps the alerts screen's scroll within its rows.
    mutating func clampAlerts() {
        let visible = AlertsView.visibleRowCount(in: AppView.contentArea(width: width, height: height))
        alertsTop = max(0, min(alertsTop, alerts.count - visible))
    }

    /// Keeps the cursor on the plot (or on the bars shown) and the table
    /// offset within the readings.
    mutating func clampDetail(plotWidth knownWidth: Int? = nil) {
        guard var state = detail else { return }
        if let cursor = state.cursor, showsUsage {
            let shown = usageBarsShown()
            state.cursor = shown.isEmpty ? nil : min(max(shown.lowerBound, cursor), shown.upperBound - 1)
        } else if let cursor = state.cursor {
            let plotWidth = knownWidth ?? detailPlotWidth()
            state.cursor = min(max(0, cursor), max(0, plotWidth - 1))
        }
        let loaded = state.data?.readings.count ?? 0
        state.tableOffset = min(max(0, state.tableOffset), max(0, loaded - detailTableRows()))
        detail = state
    }

    /// The chart's plot width on the current screen, as the detail view draws it.
    func detailPlotWidth() -> Int {
        let layout = DetailView.layout(in: AppView.contentArea(width: width, height: height))
        guard let data = detail?.data else { return layout.chart.width }
        return DetailView.chart(for: data, model: self).plotRect(in: layout.chart).width
    }

    /// Readings table rows visible on the current screen.
    func detailTableRows() -> Int {
        DetailView.layout(in: AppView.contentArea(width: width, height: height)).tableRows
    }
}
