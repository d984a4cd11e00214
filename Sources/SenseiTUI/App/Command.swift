import SenseiModels

/// I/O that `update` asks the runtime to perform. Results come back as `Msg`s.
public enum Command: Hashable, Sendable {
    /// Sync with the server in the background; answer `.syncFinished` or `.syncFailed`.
    case sync
    /// Read the sensor list from the cache; answer `.sensorsLoaded`.
    case loadSensors
    /// Read the detail of a sensor for a range; answer `.detailLoaded`.
    case loadDetail(sensorId: Int64, range: TimeRange)
    /// Read the detail of a sensor for a zoomed window (inclusive ms); answer `.detailLoaded`.
    case loadZoomedDetail(sensorId: Int64, range: TimeRange, window: ClosedRange<Int64>)
    /// Read a sensor's usage report for a range in a zone from the cache,
    /// then fetch it from the server into the cache; answer `.usageLoaded`
    /// each time.
    case loadUsage(sensorId: Int64, range: TimeRange, zone: TimeZoneRules)
    /// Read the details of several sensors over one range or zoomed window;
    /// answer `.compareLoaded`.
    case loadCompare(sensorIds: [Int64], range: TimeRange, window: ClosedRange<Int64>?)
    /// Read up to `limit` readings from `from` (the detail's window start, a
    /// zoom's too) and older than `before`, newest first; answer `.readingsLoaded`.
    case loadReadings(sensorId: Int64, from: Timestamp, before: Timestamp, limit: Int)
    /// Read the last 24 hours and usual interval of these sensors (the rows
    /// on screen); answer `.recentLoaded`.
    case loadRecent(sensorIds: [Int64])
    /// Read these sensors again (live readings moved them on); answer
    /// `.sensorsRefreshed`.
    case refreshSensors(ids: Set<Int64>)
    /// Read the alert rules last seen from the cache; answer `.alertsLoaded`.
    case loadAlerts
    /// Fetch the alert rules from the server now and keep them in the cache;
    /// answer `.alertsLoaded` (the cached ones when the server does not answer).
    case fetchAlerts
    /// Read the compare marks kept in the cache; answer `.marksLoaded`.
    case loadMarks
    /// Keep the compare marks (sensor ids, in the order marked) in the cache.
    case saveMarks([Int64])
    /// Keep the user's order of the sensors (ids, top first) in the cache.
    case saveOrder([Int64])
    /// Follow the server's live stream from now on (`LiveFeed`); answers
    /// `.liveOpened`, `.liveReadings`, `.alertChanged` and `.liveDropped` as
    /// they happen.
    case startLive
    /// Restore the terminal and exit.
    case quit
}
