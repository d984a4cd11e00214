import SenseiClient
import SenseiModels

/// Something that happened, for `update` to react to: a key, a resize, a
/// timer, or the result of a `Command` the runtime ran (failures included).
public enum Msg: Hashable, Sendable {
    case keyPressed(Key)
    case resized(width: Int, height: Int)
    /// The runtime sends one every second: ages move on and auto-refresh is due.
    case tick(Timestamp)
    /// The sensor list from the cache, in the cache's saved order (new sensors
    /// at the end), answering `.loadSensors`.
    case sensorsLoaded([SensorSummary])
    /// Answers `.loadRecent`: the sensors' last 24 hours, by id (a sensor
    /// gone from the cache is absent).
    case recentLoaded([Int64: RecentSeries])
    /// Answers `.refreshSensors`: those sensors as the cache now has them.
    case sensorsRefreshed([SensorSummary])
    /// Answers `.loadDetail`.
    case detailLoaded(DetailData)
    /// Answers `.loadUsage`: the cached report (nil when none), with
    /// `fetching` while the server is still being asked; again with its
    /// answer (or the cache's, offline) when it comes.
    case usageLoaded(sensorId: Int64, range: TimeRange, usage: CachedUsage?, fetching: Bool)
    /// Answers `.loadCompare`: one detail per sensor still cached, in order.
    case compareLoaded([DetailData])
    /// An older page of the readings table, newest first, answering
    /// `.loadReadings`; `from` is the window start it was read from.
    case readingsLoaded(sensorId: Int64, from: Timestamp, readings: [Reading])
    /// A sync is under way: `done` of `total` sensors brought up to date (0
    /// of n once the sensor list is in the cache: the list can show).
    case syncProgress(done: Int, total: Int)
    /// A sync with the server completed; the cache holds `newReadings` more.
    /// `changed` false: the cache is as it was (nothing to read again).
    case syncFinished(at: Timestamp, newReadings: Int, changed: Bool = true)
    case syncFailed(SyncFailure, at: Timestamp)
    /// Reading or writing the cache failed.
    case cacheFailed(String)
    /// The server's live stream opened: readings now arrive as they commit.
    case liveOpened(at: Timestamp)
    /// The live stream pushed readings, now in the cache; `unknownSensor`:
    /// some were of a sensor the cache does not know yet (a sync brings it).
    case liveReadings(sensorIds: Set<Int64>, unknownSensor: Bool)
    /// The live stream ended or could not open, and why; it is retried.
    case liveDropped(String, at: Timestamp)
    /// The server's alert rules (or, offline, those last seen), answering
    /// `.loadAlerts` and following each sync.
    case alertsLoaded([AlertStatus])
    /// The live stream said a rule's state moved, or a rule was created,
    /// edited or deleted; the cache already holds the change.
    case alertChanged(AlertChange)
    /// The compare marks kept in the cache, in the order marked, answering `.loadMarks`.
    case marksLoaded([Int64])
    /// SIGINT or SIGTERM.
    case interrupted
}
