import SenseiClient
import SenseiModels

/// All state of the dashboard, Bubble Tea style: `update` makes the next model
/// from a `Msg`, the views only read it. The runtime owns one, feeds it
/// messages and runs the commands `update` returns.
public struct AppModel: Hashable, Sendable {
    public enum Screen: Hashable, Sendable {
        case list, detail, help, alerts, compare
    }

    public enum Connection: Hashable, Sendable {
        /// No sync has answered yet.
        case connecting
        case online
        /// The server has not answered since `since` (the first failed sync).
        case offline(since: Timestamp)
    }

    public var screen: Screen = .list
    /// Where `?` was pressed, to go back to.
    public var screenBeforeHelp: Screen = .list
    public var width: Int
    public var height: Int
    public var now: Timestamp
    /// The local zone's offset, for every time shown.
    public var utcOffsetSeconds: Int
    public var charset: Charset {
        didSet { if charset != oldValue { listWidths = ListWidths(sensors: sensors, charset: charset) } }
    }
    /// The server, as shown in the title; nil when nothing is configured.
    public var serverName: String?

    /// Sensors in the user's order.
    public var sensors: [SensorSummary] = [] {
        didSet {
            relayout()
            listWidths = ListWidths(sensors: sensors, charset: charset)
        }
    }
    /// The list's column widths, measured when the sensors change.
    public private(set) var listWidths = ListWidths()
    /// The last 24 hours of the rows on screen (and of some that were), by
    /// sensor id: read for what is shown only, so 10,000 sensors cost what
    /// a screenful does.
    public var recent: [Int64: RecentSeries] = [:]
    /// Sensors whose `recent` is being read.
    var recentInFlight: Set<Int64> = []
    /// Whether the cache has answered once (before that the list says "loading").
    public var sensorsLoaded = false
    /// The selected sensor's place among those shown (`listLayout.order`).
    public var selection = 0
    /// The first row shown (of `listLayout.rows`, group headers included).
    public var listTop = 0
    /// Which sensors the list shows (`/`); empty: all.
    public var filter = SensorFilter() {
        didSet { if filter != oldValue { relayout() } }
    }
    /// The `/` prompt's text while it is open; nil when closed.
    public var filterDraft: String? {
        didSet { if filterDraft != oldValue { relayout() } }
    }
    /// The label key the list is grouped by (`g`); nil: not grouped.
    public var grouping: String? {
        didSet { if grouping != oldValue { relayout() } }
    }
    /// The list as shown: filtered, grouped. Kept, and made again only when
    /// the sensors, filter, grouping or charset change (`relayout`).
    public private(set) var listLayout = ListLayout(sensors: [], filter: SensorFilter(), groupBy: nil)
    /// Sensors marked with space for a compare chart, in the order marked (at
    /// most 4); kept in the cache, so they outlive the dashboard.
    public var marked: [Int64] = []
    /// The label keys `g` cycles through, best split first
    /// (`ListLayout.groupKeys`); ranked again when sensors come or go, and at each `g`.
    public var groupKeys: [String] = []
    /// The compare screen's state while it is open (`c`).
    public var compare: CompareState?
    /// The server's alert rules, as last fetched (or cached), with the live
    /// stream's changes applied.
    public var alerts: [AlertStatus] = []
    /// The stream's alert changes of the last few minutes, in order (see
    /// `receiveAlerts`).
    var recentAlertChanges: [ReceivedAlertChange] = []
    /// The alerts screen's first row shown.
    public var alertsTop = 0

    public var range: TimeRange = .day
    public var detail: DetailState?
    /// The zone usage bars count hours, days and months in: the config
    /// file's `tz`, else the system's.
    public var zone: TimeZoneRules = .utc
    /// Usage bars instead of the line chart (`u`), for every sensor they
    /// apply to, until `u` again.
    public var usageBars = false

    /// The server's live stream, while online.
    public enum Live: Hashable, Sendable {
        /// Not opened yet (or no server).
        case off
        /// Readings arrive as they commit.
        case streaming
        /// The stream dropped (why); periodic syncs carry on until it is back.
        case dropped(String)
    }

    public var connection: Connection = .connecting
    public var live: Live = .off
    /// Live readings came while the list or detail was being reloaded for
    /// earlier ones: reload again once that is done.
    var liveReloadPending = false
    var liveReloadInFlight = false
    /// Sensors live readings moved on since the last reload.
    var liveChanged: Set<Int64> = []
    public var lastSync: Timestamp?
    /// When the last sync started, or ended once it has: auto-refresh counts
    /// from here, so a slow sync is not followed at once by the next.
    public var lastSyncAttempt: Timestamp?
    public var isSyncing = false
    /// Sensors brought up to date by the sync under way, and of how many.
    public var syncProgress: SyncProgress?
    /// The latest failure a person must act on (a rejected token, say).
    public var errorMessage: String?
    /// Auto-refresh period in ms (`--refresh`).
    public var refreshInterval: Int64
    /// While offline, retry this often (ms) so the dashboard recovers soon.
    public var offlineRetryInterval: Int64 = 10_000

    public init(width: Int, height: Int, now: Timestamp, utcOffsetSeconds: Int = 0, charset: Charset = .unicode,
                serverName: String?, refreshInterval: Int64 = 30_000) {
        self.width = width
        self.height = height
        self.now = now
        self.utcOffsetSeconds = utcOffsetSeconds
        self.charset = charset
        self.serverName = serverName
        self.refreshInterval = refreshInterval
    }

    private mutating func relayout() {
        listLayout = ListLayout(sensors: sensors, filter: filterDraft.map { SensorFilter(text: $0) } ?? filter,
                                groupBy: grouping)
    }

    /// A row's sparkline and usual interval: as read for the screen, else
    /// what the summary itself carries (`sensei list` fills it).
    public func recent(of summary: SensorSummary) -> (series: TimeSeries, usualInterval: Int64?) {
        if let recent = recent[summary.id] { return (recent.series, recent.usualInterval) }
        return (summary.recent, summary.usualInterval)
    }

    public var selectedSensor: SensorSummary? {
        let order = listLayout.order
        return order.indices.contains(selection) ? sensors[order[selection]] : nil
    }

    /// The codes of sensors with a firing alert: the list's `!` marks.
    public var firingSensors: Set<String> { alerts.firingSensors }

    /// The sensor the detail screen shows, as last listed.
    public var detailSensor: SensorSummary? {
        guard let id = detail?.sensorId else { return nil }
        return sensors.first { $0.id == id }
    }

    /// What the runtime runs first: read the cache, then sync (when configured).
    public mutating func start() -> [Command] {
        serverName == nil ? [.loadSensors, .loadMarks]
            : [.loadSensors, .loadMarks, .loadAlerts, .startLive] + requestSync()
    }

    /// A sync, unless one is already running.
    mutating func requestSync() -> [Command] {
        guard serverName != nil, !isSyncing else { return [] }
        isSyncing = true
        lastSyncAttempt = now
        return [.sync]
    }
}

/// How far a sync has come: sensors up to date, of how many.
public struct SyncProgress: Hashable, Sendable {
    public var done: Int
    public var total: Int

    public init(done: Int, total: Int) {
        self.done = done
        self.total = total
    }
}

/// The compare screen's own state: which sensors, their data, the zoom.
public struct CompareState: Hashable, Sendable {
    public var sensorIds: [Int64]
    /// One per sensor, in order; nil while loading.
    public var data: [DetailData]?
    /// The zoomed window (inclusive ms), or nil for the range's own.
    public var zoom: ClosedRange<Int64>?

    public init(sensorIds: [Int64], data: [DetailData]? = nil, zoom: ClosedRange<Int64>? = nil) {
        self.sensorIds = sensorIds
        self.data = data
        self.zoom = zoom
    }
}

/// The detail screen's own state.
public struct DetailState: Hashable, Sendable {
    public var sensorId: Int64
    /// nil while loading; data for another range is dropped on a range change.
    public var data: DetailData?
    /// The chart cursor's plot cell column; nil when hidden.
    public var cursor: Int?
    /// The readings table's first row shown (0 = newest).
    public var tableOffset = 0
    /// A `.loadReadings` is running.
    public var isLoadingMore = false
    /// The zoomed window (inclusive ms), or nil for the range's own.
    public var zoom: ClosedRange<Int64>?
    /// The usage bars' report for the range, once asked for.
    public var usage: UsageLoad?

    public init(sensorId: Int64, data: DetailData? = nil, cursor: Int? = nil, tableOffset: Int = 0) {
        self.sensorId = sensorId
        self.data = data
        self.cursor = cursor
        self.tableOffset = tableOffset
    }
}
