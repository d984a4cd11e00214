import Dispatch
import SenseiClient
import SenseiModels
import Synchronization

/// Runs the I/O `Command`s `update` returns (all but `.quit`, which is the
/// runtime's) and answers each with a `Msg` through `deliver`, on another
/// thread: the caller's key handling never waits for the cache or the network.
///
/// Cache commands run one at a time, in the order given, on a serial queue,
/// so two quick reorders are saved in order. A sync runs as a Task beside
/// them: its writes do not block the cache reads (WAL).
public final class CommandRunner: Sendable {
    public let cache: SensorCache
    /// nil when no server is configured: `.sync` then does nothing.
    public let syncer: Syncer?
    /// The live stream's follower, made from the syncer's client on `.startLive`.
    private let live = Mutex<LiveFeed?>(nil)
    private let deliver: @Sendable (Msg) -> Void
    private let now: @Sendable () -> Timestamp
    private let queue = DispatchQueue(label: "sensei.cache-commands")

    public init(cache: SensorCache, syncer: Syncer?, now: @escaping @Sendable () -> Timestamp = { .now() },
                deliver: @escaping @Sendable (Msg) -> Void) {
        self.cache = cache
        self.syncer = syncer
        self.now = now
        self.deliver = deliver
    }

    public func run(_ commands: [Command]) {
        for command in commands { run(command) }
    }

    /// Starts `command` and returns at once.
    public func run(_ command: Command) {
        switch command {
        case .sync:
            guard let syncer else { return }
            let now = now, deliver = deliver
            Task.detached {
                do throws(SyncError) {
                    let summary = try await syncer.sync(now: now) { done, total in
                        deliver(.syncProgress(done: done, total: total))
                    }
                    // The rules beside the readings: the list marks firing ones.
                    deliver(.alertsLoaded(await syncer.syncAlerts().alerts))
                    deliver(.syncFinished(at: summary.finishedAt, newReadings: summary.readingsFetched,
                                          changed: summary.changedTheCache))
                } catch .server(let failure) {
                    deliver(.syncFailed(failure, at: now()))
                } catch .cache(let message) {
                    // A sync failure all the same: it must end the sync, or
                    // auto-refresh would wait for it forever.
                    deliver(.syncFailed(.cache(message), at: now()))
                }
            }
        case .loadSensors:
            onQueue { [cache] in .sensorsLoaded(try cache.sensorList()) }
        case .refreshSensors(let ids):
            onQueue { [cache] in .sensorsRefreshed(try cache.sensorList(ids: ids)) }
        case .loadRecent(let ids):
            onQueue { [cache, now] in .recentLoaded(try cache.recent(sensorIds: ids, now: now())) }
        case .loadDetail(let sensorId, let range):
            onQueue { [cache, now] in
                // A sensor deleted meanwhile: the fresh list takes the screen back to it.
                guard let data = try cache.detail(sensorId: sensorId, range: range, now: now()) else {
                    return .sensorsLoaded(try cache.sensorList())
                }
                return .detailLoaded(data)
            }
        case .loadZoomedDetail(let sensorId, let range, let window):
            onQueue { [cache, now] in
                guard let data = try cache.detail(sensorId: sensorId, range: range, now: now(), window: window) else {
                    return .sensorsLoaded(try cache.sensorList())
                }
                return .detailLoaded(data)
            }
        case .loadUsage(let sensorId, let range, let zone):
            // The cache first, so the bars show at once and offline; then the
            // server's answer, delivered after it (the fetch starts once the
            // cache's answer is out).
            onQueue { [cache, syncer, now, deliver] in
                let cached = try cache.cachedUsage(sensorId: sensorId, range: range, zone: zone.identifier)
                guard let syncer, let sensor = try cache.sensor(id: sensorId) else {
                    return .usageLoaded(sensorId: sensorId, range: range, usage: cached, fetching: false)
                }
                let oldest = range == .all ? try cache.oldestKept(sensorId: sensorId) : nil
                deliver(.usageLoaded(sensorId: sensorId, range: range, usage: cached, fetching: true))
                Task.detached {
                    let fresh = await syncer.syncUsage(for: sensor, range: range, zone: zone, now: now(), oldest: oldest)
                    deliver(.usageLoaded(sensorId: sensorId, range: range, usage: fresh, fetching: false))
                }
                return nil
            }
        case .loadCompare(let sensorIds, let range, let window):
            onQueue { [cache, now] in
                let at = now()
                return .compareLoaded(try sensorIds.compactMap { id in
                    try cache.detail(sensorId: id, range: range, now: at, window: window)
                })
            }
        case .loadReadings(let sensorId, let from, let before, let limit):
            onQueue { [cache] in
                .readingsLoaded(sensorId: sensorId, from: from,
                                readings: try cache.readings(sensorId: sensorId, from: from, before: before, limit: limit))
            }
        case .loadAlerts:
            onQueue { [cache] in .alertsLoaded(try cache.cachedAlerts()) }
        case .fetchAlerts:
            guard let syncer else { return }
            let deliver = deliver
            Task.detached { deliver(.alertsLoaded(await syncer.syncAlerts().alerts)) }
        case .loadMarks:
            onQueue { [cache] in .marksLoaded(try cache.cachedMarks()) }
        case .saveMarks(let ids):
            onQueue { [cache] in
                try cache.saveMarks(ids)
                return nil
            }
        case .saveOrder(let ids):
            onQueue { [cache] in
                try cache.saveOrder(ids)
                return nil
            }
        case .startLive:
            guard let syncer else { return }
            live.withLock { feed in
                if feed == nil { feed = LiveFeed(client: syncer.client, cache: cache, now: now, deliver: deliver) }
                feed?.start()
            }
        case .quit:
            break
        }
    }

    /// Stops following the live stream (at exit).
    public func stopLive() {
        live.withLock { $0?.stop() }
    }

    /// Runs `body` on the serial queue and delivers its answer, or the failure.
    private func onQueue(_ body: @escaping @Sendable () throws -> Msg?) {
        let deliver = deliver
        queue.async {
            do {
                if let msg = try body() { deliver(msg) }
            } catch {
                deliver(.cacheFailed(String(describing: error)))
            }
        }
    }

    /// Waits until every cache command started so far has finished (for an
    /// orderly exit and for tests). A sync in flight is not waited for.
    public func drain() {
        queue.sync {}
    }
}
