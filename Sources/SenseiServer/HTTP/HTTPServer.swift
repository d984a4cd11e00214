import CSenseiHTTP
import Logging
import SenseiModels
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The libmicrohttpd adapter: runs the daemon, gathers each request's body,
/// hands the complete request to `handler` and queues its response.
///
/// Only the files of HTTP/ and the C shim touch MHD pointers. The C callbacks
/// are file-level closures (HTTPServer+Requests.swift), not in main.swift, so
/// they are not MainActor-isolated when MHD calls them on its worker threads.
/// A request's phases are in HTTPServer+Requests.swift, queueing answers in
/// HTTPServer+Responses.swift, and `Responder` in its own file.
public final class HTTPServer: Sendable {
    public struct Configuration: Sendable {
        /// nil: every IPv4 address.
        public var host: String?
        /// 0: any free port (see `port` after `start`).
        public var port: UInt16 = 3000
        /// Worker threads, each polling its own share of the connections.
        public var threads: Int = 8
        /// At this many connections no more are accepted; new ones wait in
        /// the kernel's backlog until one closes (within the timeout, below).
        public var connectionLimit: Int = 512
        /// Seconds a connection may stay silent before it is closed, and the
        /// most a request may take to arrive whole from the connection's
        /// opening or the previous response (so slow senders cannot hold it).
        public var connectionTimeout: Int = 30
        /// Request bodies above this get 413.
        public var maxBodyBytes: Int = 1 << 20
        /// Bodies held in memory by all requests together; past it new ones
        /// get 503, so memory stays bounded whatever the number of connections.
        public var maxBufferedBodyBytes: Int = 16 << 20
        /// PEM text (not paths) of the certificate chain and its private
        /// key: both set, HTTPS through GnuTLS; both nil, plain HTTP.
        public var tlsCertificatePEM: String?
        public var tlsKeyPEM: String?

        /// "https" or "http", for the URLs the server logs.
        public var scheme: String { tlsCertificatePEM == nil ? "http" : "https" }

        public init() {}
    }

    /// Answers through the responder, at once or later from any thread.
    public typealias Handler = @Sendable (Request, Responder) -> Void

    /// Bytes past the body limit read and dropped to be able to answer 413.
    static let drainLimit = 16 << 20

    let configuration: Configuration
    let logger: Logger
    let requestLog: RequestLog
    let observer: (any HTTPServerObserver)?
    let handler: Handler
    private let daemon = Mutex<DaemonHandle?>(nil)
    private let boundPort = Atomic<UInt16>(0)
    let inFlight = Atomic<Int>(0)
    /// Requests whose connection is suspended until their answer is ready (a
    /// write waiting for its commit), by id; and whether the server is
    /// closing, after which no connection may be suspended any more.
    let suspended = Mutex<(closing: Bool, waiting: [UInt64: Responder])>((false, [:]))
    /// Responses still streaming, by request id: ended first at shutdown.
    let streams = Mutex<(closing: Bool, open: [UInt64: ResponseStream])>((false, [:]))
    let bufferedBodyBytes = Atomic<Int>(0)
    let requestCounter = Atomic<UInt64>(0)

    public convenience init(configuration: Configuration, logger: Logger, observer: (any HTTPServerObserver)? = nil,
                            handler: @escaping Handler) {
        self.init(configuration: configuration, logger: logger, requestLog: RequestLog(logger: logger),
                  observer: observer, handler: handler)
    }

    init(configuration: Configuration, logger: Logger, requestLog: RequestLog,
         observer: (any HTTPServerObserver)? = nil, handler: @escaping Handler) {
        self.configuration = configuration
        self.logger = logger
        self.requestLog = requestLog
        self.observer = observer
        self.handler = handler
    }

    /// The port being listened on, once started.
    public var port: Int { Int(boundPort.load(ordering: .acquiring)) }

    /// Connections open now; 0 when not started.
    public var openConnections: Int {
        daemon.withLock { handle in handle.map { Int(sensei_daemon_open_connections($0.pointer)) } ?? 0 }
    }

    /// Requests announced and not yet over (answered and sent, or cut off).
    public var requestsInFlight: Int { inFlight.load(ordering: .relaxed) }

    /// Body bytes counted against `maxBufferedBodyBytes` now.
    var bufferedBodies: Int { bufferedBodyBytes.load(ordering: .relaxed) }

    /// The shutdown has answered what waited: no connection is suspended from now on.
    var isClosing: Bool { suspended.withLock { $0.closing } }

    public func start() throws {
        var config = sensei_daemon_config()
        config.port = configuration.port
        config.threads = UInt32(max(1, configuration.threads))
        config.connection_limit = UInt32(configuration.connectionLimit)
        config.connection_timeout = UInt32(configuration.connectionTimeout)
        config.connection_memory_limit = 32 * 1024
        var error = [CChar](repeating: 0, count: 256)
        // The daemon holds a reference to this server until stop().
        let context = Unmanaged.passRetained(self).toOpaque()
        let handle = withOptionalCString(configuration.host) { host in
            withOptionalCString(configuration.tlsCertificatePEM) { cert in
                withOptionalCString(configuration.tlsKeyPEM) { key in
                    config.host = host
                    config.tls_cert_pem = cert
                    config.tls_key_pem = key
                    return sensei_daemon_start(&config, accessCallback, completedCallback, logCallback,
                                               context, &error, error.count)
                }
            }
        }
        guard let handle else {
            Unmanaged<HTTPServer>.fromOpaque(context).release()
            throw HTTPServerError.cannotStart(String(decoding: error.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self))
        }
        boundPort.store(sensei_daemon_port(handle), ordering: .releasing)
        daemon.withLock { $0 = DaemonHandle(pointer: handle, context: context) }
    }

    /// Stops accepting, lets requests in progress finish (up to `grace`), then
    /// closes every connection. Safe to call more than once.
    public func shutdown(grace: Duration = .seconds(10)) {
        guard let handle = daemon.withLock({ value -> DaemonHandle? in
            defer { value = nil }
            return value
        }) else { return }
        sensei_daemon_quiesce(handle.pointer)
        // Streams never end by themselves: end them now, or the wait below
        // would last the whole grace (and a suspended one abort the stop).
        let open = streams.withLock { streams in
            streams.closing = true
            return Array(streams.open.values)
        }
        for stream in open { stream.finish() }
        let deadline = ContinuousClock.now + grace
        while inFlight.load(ordering: .acquiring) > 0 && ContinuousClock.now < deadline {
            usleep(2_000)
        }
        // libmicrohttpd aborts the process if stopped with a connection still
        // suspended. From here on none is: a request still arriving on a
        // connection accepted before the quiesce gets 503 at once, and what
        // still waits (a write stuck behind a slow disk) gets it now; those
        // answers get a moment to go out, then the daemon stops.
        if closeAndAnswerSuspended() > 0 {
            let flushed = ContinuousClock.now + .seconds(1)
            while inFlight.load(ordering: .acquiring) > 0 && ContinuousClock.now < flushed { usleep(2_000) }
        }
        sensei_daemon_stop(handle.pointer)
        Unmanaged<HTTPServer>.fromOpaque(handle.context).release()
    }

    /// Refuses further suspensions and answers every suspended request with
    /// 503; returns how many there were.
    private func closeAndAnswerSuspended() -> Int {
        let waiting = suspended.withLock { state in
            state.closing = true
            return Array(state.waiting.values)
        }
        for responder in waiting { responder.respond(Self.stopping) }
        return waiting.count
    }

    static let stopping = Response.error(APIError(status: 503, message: "the server is stopping; retry shortly",
                                                  headers: ["Retry-After": "1"]))

    /// Records a request about to be suspended; false once the server is
    /// closing, when the request must be answered at once instead.
    func noteSuspending(_ responder: Responder, id: UInt64) -> Bool {
        suspended.withLock { state in
            guard !state.closing else { return false }
            state.waiting[id] = responder
            return true
        }
    }

    func noteResumed(id: UInt64) {
        _ = suspended.withLock { $0.waiting.removeValue(forKey: id) }
    }
}

/// Told of every response as it is queued, on the thread queueing it: keep
/// it short. `route` is the handler's tag for the request
/// (`Responder.tag(route:)`), -1 when there is none, as for the 413 and 503
/// refusals the server makes before any handler runs. `seconds` run from
/// the request's arrival (its headers read) to now. A class: an optional
/// existential of any type costs 400 instructions a request to copy.
public protocol HTTPServerObserver: AnyObject, Sendable {
    func responded(method: String, path: String, route: Int, status: Int, seconds: Double)
}

public enum HTTPServerError: Error, CustomStringConvertible {
    case cannotStart(String)

    public var description: String {
        switch self {
        case .cannotStart(let reason): reason
        }
    }
}

/// The daemon pointer and the retained server it calls back into.
private struct DaemonHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    let context: UnsafeMutableRawPointer
}

private func withOptionalCString<T>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> T) -> T {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}
