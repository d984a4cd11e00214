import Foundation
import SenseiClient
import SenseiModels
import Synchronization

/// Follows the server's live stream for the dashboard: readings go into the
/// cache as they arrive, and `update` hears of each batch (`.liveReadings`),
/// of the stream opening (`.liveOpened`) and of it dropping (`.liveDropped`).
/// Alert rule changes go into the cache's copy of the rules and on to
/// `update` (`.alertChanged`), so the `!` marks follow them at once.
/// A dropped stream is reopened, backing off from 1 s to `maxBackoff` (10 s:
/// alert marks move only with the stream between syncs, so a restarted
/// server must not leave the dashboard not live for long) while the server
/// stays away; meanwhile the periodic sync carries on.
public final class LiveFeed: Sendable {
    private let client: APIClient
    private let cache: SensorCache
    private let deliver: @Sendable (Msg) -> Void
    private let now: @Sendable () -> Timestamp
    private let maxBackoff: Duration
    private let task = Mutex<Task<Void, Never>?>(nil)

    public init(client: APIClient, cache: SensorCache, maxBackoff: Duration = .seconds(10),
                now: @escaping @Sendable () -> Timestamp = { .now() }, deliver: @escaping @Sendable (Msg) -> Void) {
        self.client = client
        self.cache = cache
        self.maxBackoff = maxBackoff
        self.now = now
        self.deliver = deliver
    }

    deinit { stop() }

    /// Starts following (once; later calls do nothing).
    public func start() {
        task.withLock { task in
            guard task == nil else { return }
            task = Task.detached { [client, cache, deliver, now, maxBackoff] in
                var backoff = Duration.seconds(1)
                while !Task.isCancelled {
                    let reason: String
                    do {
                        for try await event in client.live() {
                            switch event {
                            case .opened:
                                backoff = .seconds(1)
                                deliver(.liveOpened(at: now()))
                            case .alert(let change):
                                do {
                                    try cache.applyAlertChange(change)
                                } catch {
                                    deliver(.cacheFailed(String(describing: error)))
                                }
                                deliver(.alertChanged(change))
                            case .reading(let reading):
                                do {
                                    let (stored, unknown) = try cache.storeLive([reading])
                                    deliver(.liveReadings(sensorIds: stored, unknownSensor: unknown))
                                } catch {
                                    deliver(.cacheFailed(String(describing: error)))
                                }
                            }
                        }
                        reason = "the stream ended"
                    } catch let failure as SyncFailure {
                        reason = failure.message
                    } catch {
                        reason = String(describing: error)
                    }
                    if Task.isCancelled { break }
                    deliver(.liveDropped(reason, at: now()))
                    try? await Task.sleep(for: backoff)
                    backoff = min(maxBackoff, backoff * 2)
                }
            }
        }
    }

    public func stop() {
        task.withLock { $0?.cancel() }
    }
}
