import CMosquitto
import Dispatch
import Foundation
import Logging
import Synchronization

/// Where the subscriber's points go. `store` returns once the points are
/// durably committed (or refused): the subscriber acknowledges the messages
/// to the broker only after that.
protocol MQTTPointSink: Sendable {
    func store(_ points: [MQTTPoint]) -> MQTTStoreOutcome
}

struct MQTTStoreOutcome: Sendable, Equatable {
    var stored = 0
    var refused: [MQTTDropReason: Int] = [:]
}

/// The connection to the broker as `/health` shows it.
public enum MQTTConnectionState: Int, Sendable {
    case connecting, connected, disconnected

    public var name: String {
        switch self {
        case .connecting: "connecting"
        case .connected: "connected"
        case .disconnected: "disconnected"
        }
    }
}

/// The MQTT subscriber: one libmosquitto client in a persistent session
/// (fixed client id, clean session off, QoS 1), driven by a network thread of
/// its own rather than `mosquitto_loop_start`.
///
/// Why its own loop: libmosquitto 2.0 queues a QoS 1 message's PUBACK *before*
/// it calls the message callback (lib/handle_publish.c), and with
/// `mosquitto_threaded_set` the queue is only written by `mosquitto_loop_write`
/// (lib/packet_mosq.c, `packet__queue`). So this loop reads every message
/// waiting on the socket (mapping each in the callback), commits them all in
/// one group commit, and only then writes: a message the broker considers
/// delivered is a committed one, and the messages that arrive during a commit
/// are the next batch. (QoS 2 is not asked for: libmosquitto sends PUBREC, after
/// which the broker forgets the message, before the application sees it.)
/// `mosquitto_manual_ack` would say this directly, but Debian 12's 2.0.11 has none.
///
/// On PostgreSQL, several servers (nodes) may share one database: each then
/// subscribes to `$share/sensei/<filter>`, so the broker hands each message to
/// one node (the topic delivered is still the real one, so mapping is
/// unchanged), and each has a session of its own (`MQTTSettings.clientID`).
/// Mosquitto goes on giving a member whose client is away its share, queued
/// in its session: a node that stops gracefully unsubscribes first
/// (`leaveShare`), and one killed outright gets that queue when it returns.
/// (Mosquitto takes `$share` from MQTT 3.1.1 clients too, so the protocol
/// stays 3.1.1.)
final class MQTTSubscriber: @unchecked Sendable {
    struct Configuration: Sendable {
        var broker: MQTTBrokerURL
        var caFile: String?
        var clientID = "sensei-server"
        /// Each filter subscribed as `$share/<group>/<filter>`; nil: plain
        /// subscriptions (the one server on SQLite, and brokers without `$share`).
        var shareGroup: String?
        /// A graceful stop on a shared subscription, in seconds: the most to
        /// wait for the UNSUBACK, then for what the broker had queued for this
        /// session before it, which ends when nothing came for `quiet`.
        var leaving: (unsubscribe: Double, drain: Double, quiet: Double) = (2, 3, 0.5)
        var keepalive: Int32 = 30
        /// Reconnect backoff: doubles from the first to the last.
        var retryDelays: (first: Double, last: Double) = (0.5, 15)
        /// Messages read before they are committed, at most: also the most a
        /// SIGKILL between a commit and its acknowledgements can have stored
        /// twice (the broker delivers them again).
        var batchLimit = Self.defaultBatchLimit
        static let defaultBatchLimit = 500
    }

    private let configuration: Configuration
    private let mapper: MQTTMessageMapper
    private let sink: any MQTTPointSink
    private let metrics: MQTTMetrics
    private let logger: Logger
    private let stateValue = Atomic<Int>(MQTTConnectionState.connecting.rawValue)
    private let stopping = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    /// Touched only by the network thread (the callbacks run on it too).
    private var pending: [MQTTPoint] = []
    private var pendingMessages = 0
    /// Messages read since the start: how `leaveShare` sees the queue drain.
    private var messagesRead = 0
    private let othersSubscribed: @Sendable () -> Bool
    /// UNSUBSCRIBEs sent and not yet acknowledged, by message id.
    private var unacknowledgedUnsubscribes: Set<Int32> = []

    /// `node`: this server's name when it runs on PostgreSQL, one node of
    /// possibly several (a session of its own, a shared subscription); nil on SQLite.
    /// `othersSubscribed`: whether another node is up to take this node's
    /// share when it stops (else it keeps its subscriptions, and the broker
    /// keeps its messages in the session, as for the one server on SQLite).
    convenience init(settings: MQTTSettings, node: String? = nil, sink: any MQTTPointSink, metrics: MQTTMetrics,
                     logger: Logger, othersSubscribed: @escaping @Sendable () -> Bool = { true }) {
        var configuration = Configuration(broker: settings.broker)
        configuration.caFile = settings.caFile
        configuration.clientID = MQTTSettings.clientID(settings.clientID, node: node)
        configuration.shareGroup = node == nil ? nil : MQTTSettings.shareGroup
        configuration.retryDelays = settings.retryDelays
        self.init(configuration: configuration, mapper: settings.mapper, sink: sink, metrics: metrics, logger: logger,
                  othersSubscribed: othersSubscribed)
    }

    init(configuration: Configuration, mapper: MQTTMessageMapper, sink: any MQTTPointSink,
         metrics: MQTTMetrics, logger: Logger, othersSubscribed: @escaping @Sendable () -> Bool = { true }) {
        self.othersSubscribed = othersSubscribed
        self.configuration = configuration
        self.mapper = mapper
        self.sink = sink
        self.metrics = metrics
        self.logger = logger
    }

    var clientID: String { configuration.clientID }
    var isShared: Bool { configuration.shareGroup != nil }

    /// The filters as subscribed.
    private var filters: [String] {
        mapper.subscriptions.map { filter in configuration.shareGroup.map { "$share/\($0)/\(filter)" } ?? filter }
    }

    var state: MQTTConnectionState { MQTTConnectionState(rawValue: stateValue.load(ordering: .acquiring)) ?? .connecting }

    func start() {
        MQTTLibrary.initialize()
        let thread = Thread { [self] in run() }
        thread.name = "sensei-mqtt"
        thread.start()
    }

    /// Commits what was read, leaves a shared subscription (`leaveShare`),
    /// says goodbye to the broker (the session stays), and ends the network
    /// thread; waits for it a few seconds at most past leaving's bounds, since
    /// a connect to an unreachable host may hold it longer.
    func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wake.signal()
        let bound = configuration.leaving.unsubscribe + configuration.leaving.drain + 5
        if finished.wait(timeout: .now() + bound) == .timedOut {
            logger.warning("MQTT: the network thread did not stop within \(Int(bound)) s")
        }
    }

    private var isStopping: Bool { stopping.load(ordering: .acquiring) }

    private func run() {
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        guard let mosq = mosquitto_new(configuration.clientID, false, userdata) else {
            logger.error("MQTT: libmosquitto could not make a client")
            finished.signal()
            return
        }
        defer {
            mosquitto_destroy(mosq)
            finished.signal()
        }
        do {
            try configure(mosq)
        } catch {
            setState(.disconnected, problem: "\(error)", level: .error)
            return
        }
        var delay = configuration.retryDelays.first
        while !isStopping {
            if let problem = connect(mosq) {
                setState(.disconnected, problem: problem)
                _ = wake.wait(timeout: .now() + delay)
                delay = min(delay * 2, configuration.retryDelays.last)
                continue
            }
            if let problem = serve(mosq) {
                setState(.disconnected, problem: problem)
                delay = configuration.retryDelays.first
                _ = wake.wait(timeout: .now() + delay)
            }
        }
        flush()
        leaveShare(mosq)
        if mosquitto_socket(mosq) >= 0 {
            mosquitto_disconnect(mosq)
            _ = mosquitto_loop_write(mosq, 1)
        }
        setState(.disconnected, problem: nil)
    }

    private func configure(_ mosq: OpaquePointer) throws(MQTTConfigurationError) {
        // PUBACKs wait in libmosquitto's queue until this loop writes them.
        mosquitto_threaded_set(mosq, true)
        mosquitto_int_option(mosq, MOSQ_OPT_PROTOCOL_VERSION, Int32(MQTT_PROTOCOL_V311))
        mosquitto_connect_callback_set(mosq, mqttConnected)
        mosquitto_disconnect_callback_set(mosq, mqttDisconnected)
        mosquitto_message_callback_set(mosq, mqttMessage)
        mosquitto_unsubscribe_callback_set(mosq, mqttUnsubscribed)
        let broker = configuration.broker
        if broker.username != nil || broker.password != nil {
            try check(mosquitto_username_pw_set(mosq, broker.username, broker.password), "setting the user")
        }
        if broker.tls {
            if let caFile = configuration.caFile {
                try check(mosquitto_tls_set(mosq, caFile, nil, nil, nil, nil), "loading --mqtt-ca \(caFile)")
            } else {
                try check(mosquitto_int_option(mosq, MOSQ_OPT_TLS_USE_OS_CERTS, 1), "using the system's CAs")
            }
        }
    }

    private func check(_ rc: Int32, _ what: String) throws(MQTTConfigurationError) {
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { throw .invalid("MQTT: \(what) failed: \(Self.describe(rc))") }
    }

    /// nil once the socket is open and CONNECT queued (CONNACK comes through the loop).
    private func connect(_ mosq: OpaquePointer) -> String? {
        let rc = mosquitto_connect(mosq, configuration.broker.host, Int32(configuration.broker.port),
                                   configuration.keepalive)
        return rc == MOSQ_ERR_SUCCESS.rawValue ? nil : Self.describe(rc)
    }

    /// The connected loop; returns why the connection ended (nil: stopping).
    private func serve(_ mosq: OpaquePointer) -> String? {
        while !isStopping {
            if let problem = turn(mosq, waiting: 250) { return problem }
        }
        return nil
    }

    /// One turn of the connected loop: waits up to `milliseconds` for the
    /// socket, reads and commits what is there, then writes what is queued
    /// (the PUBACKs of what was just committed). Returns why the connection
    /// ended, or nil.
    private func turn(_ mosq: OpaquePointer, waiting milliseconds: Int32) -> String? {
        let socket = mosquitto_socket(mosq)
        guard socket >= 0 else { return "connection closed" }
        let wantWrite = mosquitto_want_write(mosq)
        var poller = pollfd(fd: socket, events: Int16(POLLIN) | (wantWrite ? Int16(POLLOUT) : 0), revents: 0)
        let ready = poll(&poller, 1, milliseconds)
        if ready > 0, poller.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
            // Everything already here is one batch, up to the limit.
            repeat {
                let rc = mosquitto_loop_read(mosq, 1)
                guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                    flush()
                    return Self.describe(rc)
                }
            } while pendingMessages < configuration.batchLimit && Self.isReadable(mosquitto_socket(mosq))
            flush()
        }
        if mosquitto_want_write(mosq) {
            let rc = mosquitto_loop_write(mosq, 1)
            guard rc == MOSQ_ERR_SUCCESS.rawValue else { return Self.describe(rc) }
        }
        let rc = mosquitto_loop_misc(mosq)
        return rc == MOSQ_ERR_SUCCESS.rawValue ? nil : Self.describe(rc)
    }

    /// On a graceful stop with a shared subscription: unsubscribes, so the
    /// broker gives the group's messages to the other nodes from now on
    /// (mosquitto would otherwise queue this node's share in its saved
    /// session until it came back), then takes in, commits and acknowledges
    /// what the broker had already queued for this session (it sends that
    /// whatever the subscriptions, as in-flight slots free up). Bounded:
    /// whatever is left stays in the session, for this node's next start,
    /// which subscribes again on connecting.
    private func leaveShare(_ mosq: OpaquePointer) {
        guard configuration.shareGroup != nil, state == .connected, mosquitto_socket(mosq) >= 0 else { return }
        // The last node up keeps its share: unsubscribed, the broker would drop
        // what is published until a node is back.
        guard othersSubscribed() else {
            return logger.info("MQTT: no other node is up; the broker keeps this node's share in its session")
        }
        let clock = ContinuousClock()
        let limits = configuration.leaving
        for filter in filters {
            var mid: Int32 = 0
            let rc = mosquitto_unsubscribe(mosq, &mid, filter)
            guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                logger.warning("MQTT: unsubscribing from \(filter) failed: \(Self.describe(rc))")
                return
            }
            unacknowledgedUnsubscribes.insert(mid)
        }
        let answered = clock.now + .milliseconds(Int64(limits.unsubscribe * 1000))
        while !unacknowledgedUnsubscribes.isEmpty {
            guard clock.now < answered else {
                logger.warning("MQTT: no UNSUBACK within \(limits.unsubscribe) s; the broker may queue this node's share in its session")
                return
            }
            if let problem = turn(mosq, waiting: 50) {
                logger.warning("MQTT: leaving the shared subscription: \(problem)")
                return
            }
        }
        let drained = clock.now + .milliseconds(Int64(limits.drain * 1000))
        let quiet = Duration.milliseconds(Int64(limits.quiet * 1000))
        var lastMessage = clock.now
        while clock.now < drained, clock.now - lastMessage < quiet {
            let read = messagesRead
            if let problem = turn(mosq, waiting: 50) {
                logger.warning("MQTT: taking in what the broker had queued: \(problem)")
                return
            }
            if messagesRead != read { lastMessage = clock.now }
        }
        logger.info("MQTT: left the shared subscription; the other nodes take the messages")
    }

    private static func isReadable(_ socket: Int32) -> Bool {
        guard socket >= 0 else { return false }
        var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 0) > 0
    }

    /// Stores what was read since the last flush; returns once it is durable.
    private func flush() {
        guard !pending.isEmpty || pendingMessages > 0 else { return }
        let points = pending
        pending.removeAll(keepingCapacity: true)
        pendingMessages = 0
        guard !points.isEmpty else { return }
        let outcome = sink.store(points)
        metrics.readingsStored(outcome.stored)
        for (reason, count) in outcome.refused { metrics.dropped(reason, count: count) }
    }

    // MARK: - libmosquitto callbacks, on the network thread

    fileprivate func connected(_ mosq: OpaquePointer?, code: Int32) {
        guard code == 0 else {
            setState(.disconnected, problem: "the broker refused the connection: "
                     + String(cString: mosquitto_connack_string(code)), level: .error)
            return
        }
        // Subscribing here means every reconnect subscribes again, and a node
        // that unsubscribed when it last stopped subscribes anew.
        for filter in filters {
            let rc = mosquitto_subscribe(mosq, nil, filter, 1)
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                logger.error("MQTT: subscribing to \(filter) failed: \(Self.describe(rc))")
            }
        }
        setState(.connected, problem: nil)
    }

    fileprivate func unsubscribed(mid: Int32) {
        unacknowledgedUnsubscribes.remove(mid)
    }

    fileprivate func disconnected(code: Int32) {
        guard !isStopping else { return }
        setState(.disconnected, problem: code == 0 ? "disconnected" : Self.describe(code))
    }

    fileprivate func received(_ message: mosquitto_message) {
        metrics.messageReceived()
        pendingMessages += 1
        messagesRead += 1
        let topic = message.topic.map { String(cString: $0) } ?? ""
        let length = Int(max(message.payloadlen, 0))
        let payload = length == 0 || message.payload == nil
            ? [] : Array(UnsafeRawBufferPointer(start: message.payload, count: length))
        switch mapper.map(topic: topic, payload: payload, retained: message.retain) {
        case .points(let points): pending.append(contentsOf: points)
        case .dropped(let reason):
            metrics.dropped(reason)
            logger.debug("MQTT: dropped a message on \(topic): \(reason.rawValue)")
        case .discovery, .ignored: break
        }
    }

    /// Logs only changes, so a broker down for a day logs one line, not thousands.
    private func setState(_ new: MQTTConnectionState, problem: String?, level: Logger.Level = .warning) {
        let old = MQTTConnectionState(rawValue: stateValue.exchange(new.rawValue, ordering: .acquiringAndReleasing))
        metrics.connectionChanged(new == .connected)
        guard old != new else {
            if let problem { logger.debug("MQTT: \(configuration.broker): \(problem)") }
            return
        }
        if new == .connected {
            logger.notice("MQTT: connected to \(configuration.broker)")
        } else if let problem {
            logger.log(level: level, "MQTT: \(configuration.broker): \(problem); retrying with backoff")
        }
    }

    static func describe(_ rc: Int32) -> String {
        if rc == MOSQ_ERR_ERRNO.rawValue { return String(cString: strerror(errno)) }
        let text = String(cString: mosquitto_strerror(rc))
        return text.hasSuffix(".") ? String(text.dropLast()) : text
    }
}

/// `mosquitto_lib_init` once a process.
enum MQTTLibrary {
    private static let initialized: Bool = {
        mosquitto_lib_init()
        return true
    }()

    static func initialize() { _ = initialized }
}

// C callbacks: free functions, so no actor isolation follows them onto the network thread.
private func subscriber(_ userdata: UnsafeMutableRawPointer?) -> MQTTSubscriber? {
    userdata.map { Unmanaged<MQTTSubscriber>.fromOpaque($0).takeUnretainedValue() }
}

private func mqttConnected(_ mosq: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ code: Int32) {
    subscriber(userdata)?.connected(mosq, code: code)
}

private func mqttUnsubscribed(_ mosq: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ mid: Int32) {
    subscriber(userdata)?.unsubscribed(mid: mid)
}

private func mqttDisconnected(_ mosq: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ code: Int32) {
    subscriber(userdata)?.disconnected(code: code)
}

private func mqttMessage(_ mosq: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?,
                         _ message: UnsafePointer<mosquitto_message>?) {
    guard let message else { return }
    subscriber(userdata)?.received(message.pointee)
}
