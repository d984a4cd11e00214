import Foundation
import SenseiModels
import Synchronization

/// The live stream's listeners (`GET /stream`): every committed reading, from
/// whichever ingest path, goes as a server-sent event to each listener
/// watching its sensor, straight from the store's commit; so does every
/// change of an alert rule (`AlertEvent`).
///
/// Bounded: at most `maxListeners` at once (the route answers 503 past it),
/// each with at most `queueBytes` not yet taken by its client (a slower
/// client is cut, never waited for: the sender is the store's writer). A
/// comment line every `heartbeat` keeps proxies from closing an idle stream,
/// and finds clients that went away while nothing was sent.
public final class ReadingStreams: Sendable {
    public struct Configuration: Sendable {
        public var maxListeners = 32
        public var queueBytes = 256 * 1024
        public var heartbeat: Duration = .seconds(15)
        public init() {}
    }

    /// What one listener asked for.
    struct Watch: Sendable {
        /// nil: every sensor.
        var sensorIDs: Set<Int64>?
        /// Events still to send before ending; nil: no end.
        var limit: Int?
        /// When to end; nil: never.
        var deadline: ContinuousClock.Instant?
    }

    private struct Listener {
        let stream: ResponseStream
        var watch: Watch
    }

    private struct State {
        var listeners: [Int: Listener] = [:]
        var nextID = 0
        var stopped = false
        var lastBeat = ContinuousClock.now
    }

    let configuration: Configuration
    private let tap: ReadingTap
    private let state = Mutex(State())
    private let ticker = WorkerThread(name: "sensei-streams")

    /// Tells the other nodes of an alert event published here (`NodeLink`).
    private let relay: @Sendable (AlertEvent.Relayed) -> Void

    init(configuration: Configuration, store: any ReadingStore,
         relay: @escaping @Sendable (AlertEvent.Relayed) -> Void = { _ in }) {
        self.configuration = configuration
        self.tap = store.tap
        self.relay = relay
        store.observeCommits(CommitObserver { [weak self] commit in self?.publish(commit.stored) })
    }

    /// Starts the heartbeats and deadlines.
    func start() {
        // Fine enough for `timeout`, whatever the heartbeat.
        let step = Double(min(250, Self.milliseconds(configuration.heartbeat))) / 1000
        ticker.start { [self] _ in
            tick()
            return step
        }
    }

    /// Listeners now.
    public var count: Int { state.withLock { $0.listeners.count } }

    /// Whether the server is stopping: `open` refuses for that, not for the limit.
    var isStopped: Bool { state.withLock { $0.stopped } }

    /// A new listener's stream, already holding its first line; nil when
    /// `maxListeners` are listening, or once stopped.
    func open(_ watch: Watch) -> ResponseStream? {
        let reserved = state.withLock { state -> Int? in
            guard !state.stopped, state.listeners.count < configuration.maxListeners else { return nil }
            state.nextID += 1
            return state.nextID
        }
        guard let id = reserved else { return nil }
        let stream = ResponseStream(capacity: configuration.queueBytes) { [weak self] in self?.close(id) }
        // Sent at once, so a client knows it is connected before any reading.
        stream.send(Array(": sensei live readings\nretry: 2000\n\n".utf8))
        state.withLock { $0.listeners[id] = Listener(stream: stream, watch: watch) }
        tap.attach()
        return stream
    }

    /// Ends every stream and the heartbeat thread.
    public func stop() {
        let streams = state.withLock { state -> [ResponseStream]? in
            guard !state.stopped else { return nil }
            state.stopped = true
            return state.listeners.values.map(\.stream)
        }
        guard let streams else { return }
        for stream in streams { stream.finish() }
        ticker.stop()
    }

    private func close(_ id: Int) {
        let removed = state.withLock { $0.listeners.removeValue(forKey: id) }
        if removed != nil { tap.detach() }
    }

    /// On the writer thread, after each commit. Streams are written outside
    /// the lock: a stream's close (on an MHD thread) takes it.
    private func publish(_ written: [StoredReadings]) {
        guard tap.isOn else { return }
        let listeners = state.withLock { Array($0.listeners) }
        guard !listeners.isEmpty else { return }
        var sentCount: [Int: Int] = [:]
        for stored in written {
            let wanting = listeners.filter { $0.value.watch.sensorIDs?.contains(stored.sensorID) ?? true }
            guard !wanting.isEmpty else { continue }
            for reading in stored.readings {
                let event = Self.event(stored, reading)
                for (id, listener) in wanting {
                    if let limit = listener.watch.limit, sentCount[id, default: 0] >= limit { continue }
                    // A stream that refuses is over; its close removes it.
                    if listener.stream.send(event) { sentCount[id, default: 0] += 1 }
                }
            }
        }
        // Listeners with a limit: count down, finish the ones that reached it.
        state.withLock { state in
            for (id, sent) in sentCount {
                guard var listener = state.listeners[id], let limit = listener.watch.limit else { continue }
                listener.watch.limit = limit - sent
                state.listeners[id] = listener
                if limit - sent <= 0 { listener.stream.finish() }
            }
        }
    }

    /// Sends an alert rule's change to the listeners watching every sensor
    /// or one of its sensors. Not counted against a listener's `limit`
    /// (readings); a listener too far behind is cut as for readings.
    /// Other nodes' listeners get it too.
    func publish(_ event: AlertEvent) {
        let relayed = event.relayed
        publishHere(relayed)
        relay(relayed)
    }

    /// Sends an alert event to this node's listeners only: one of this
    /// node's, or one another node relayed.
    func publishHere(_ event: AlertEvent.Relayed) {
        let listeners = state.withLock { Array($0.listeners.values) }
        let wanting = listeners.filter { $0.watch.sensorIDs.map { !$0.isDisjoint(with: event.sensorIDs) } ?? true }
        guard !wanting.isEmpty else { return }
        for listener in wanting { listener.stream.send(event.bytes) }
    }

    /// `event: reading` with the reading as JSON (`LiveReading`) on its `data:` line.
    static func event(_ stored: StoredReadings, _ reading: Reading) -> [UInt8] {
        var writer = JSONWriter(capacity: 128)
        LiveReading(sensorId: stored.sensorID, code: stored.code, reading: reading).write(to: &writer)
        var bytes = Array("event: reading\ndata: ".utf8)
        bytes.append(contentsOf: writer.bytes)
        bytes.append(contentsOf: "\n\n".utf8)
        return bytes
    }

    /// Heartbeats and deadlines, on the ticker's thread.
    private func tick() {
        let now = ContinuousClock.now
        let (listeners, beat) = state.withLock { state in
            let beat = now - state.lastBeat >= configuration.heartbeat
            if beat { state.lastBeat = now }
            return (Array(state.listeners.values), beat)
        }
        for listener in listeners {
            if let deadline = listener.watch.deadline, now >= deadline {
                listener.stream.finish()
            } else if beat {
                listener.stream.send(Self.heartbeat)
            }
        }
    }

    private static let heartbeat = Array(": heartbeat\n\n".utf8)

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds) * 1000 + Int(duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
