import SenseiClient
import SenseiModels

/// The detail's usage bars (`u`): whether they show, their report, their cursor.
public struct UsageLoad: Hashable, Sendable {
    public var range: TimeRange
    /// The cache's report (or the server's fresh one); nil: none yet.
    public var usage: CachedUsage?
    /// The server is still being asked.
    public var fetching: Bool

    public init(range: TimeRange, usage: CachedUsage?, fetching: Bool) {
        self.range = range
        self.usage = usage
        self.fetching = fetching
    }
}

extension AppModel {
    /// The sensor the detail shows: as loaded, else as listed.
    public var detailShownSensor: Sensor? { detail?.data?.sensor ?? detailSensor?.sensor }

    /// Whether the detail shows usage bars: toggled on, and the sensor is a
    /// counter or a power sensor.
    public var showsUsage: Bool { usageBars && screen == .detail && detailShownSensor?.hasUsage == true }

    /// The bars' report, when one is in for the range shown.
    public var usageReport: UsageReport? {
        guard let load = detail?.usage, load.range == range else { return nil }
        return load.usage?.report
    }

    mutating func toggleUsage() -> [Command] {
        guard var state = detail, let sensor = detailShownSensor else { return [] }
        guard sensor.hasUsage else {
            // A key that does nothing and says nothing looks broken (issue 38).
            errorMessage = Self.noUsageMessage(sensor)
            return []
        }
        usageBars.toggle()
        // A chart column and a bar are different things to point at.
        state.cursor = nil
        detail = state
        return loadUsage()
    }

    /// Why `u` shows no bars for `sensor` (`hasUsage`), and how to set the
    /// kind or units on the server (`PATCH /sensors/<code>`, admin; see
    /// docs/api.md). Short, for the status bar: the reason comes first, the
    /// request after it, should the bar cut the end off.
    static func noUsageMessage(_ sensor: Sensor) -> String {
        "usage needs a counter or units W/kW/MW: PATCH /sensors/\(sensor.code) {\"kind\":\"counter\"}"
    }

    /// Asks for the usage of the detail shown, when its bars are.
    func loadUsage() -> [Command] {
        guard showsUsage, let detail else { return [] }
        return [.loadUsage(sensorId: detail.sensorId, range: range, zone: zone)]
    }

    mutating func receiveUsage(sensorId: Int64, range: TimeRange, usage: CachedUsage?, fetching: Bool) {
        guard var state = detail, state.sensorId == sensorId, range == self.range else { return }
        // The fresh answer failed (offline) and the cache had nothing: keep
        // what is shown rather than blank it.
        let kept = usage ?? (state.usage?.range == range ? state.usage?.usage : nil)
        state.usage = UsageLoad(range: range, usage: kept, fetching: fetching)
        detail = state
        clampDetail()
    }

    /// The bars the chart area has room for (indices into the report's
    /// intervals): the newest, as `UsageBars` draws them.
    func usageBarsShown() -> Range<Int> {
        guard let report = usageReport else { return 0..<0 }
        let area = DetailView.layout(in: AppView.contentArea(width: width, height: height)).chart
        let layout = UsageBars(report: report, zone: zone, charset: charset).layout(in: area)
        return layout.firstShown..<report.usage.count
    }

    /// ←/→ a bar at a time, Home/End the oldest and newest shown; a hidden
    /// cursor shows on the running interval.
    mutating func moveUsageCursor(_ action: KeyAction) {
        guard var state = detail else { return }
        let shown = usageBarsShown()
        guard !shown.isEmpty else { return }
        switch action {
        case .moveCursor(let step): state.cursor = (state.cursor ?? (step < 0 ? shown.upperBound : shown.upperBound - 1)) + step
        case .cursorToStart: state.cursor = shown.lowerBound
        default: state.cursor = shown.upperBound - 1
        }
        detail = state
        clampDetail()
    }
}
