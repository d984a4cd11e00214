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
/// Only this file and the C shim touch MHD pointers. The C callbacks are
/// file-level closures, not in main.swift, so they are not MainActor-isolated
/// when MHD calls them on its worker threads.
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
    private let observer: (any HTTPServerObserver)?
    private let handler: Handler
    private let daemon = Mutex<DaemonHandle?>(nil)
    private let boundPort = Atomic<UInt16>(0)
    private let inFlight = Atomic<Int>(0)
    /// Requests whose connection is suspended until their answer is ready (a
    /// write waiting for its commit), by id; and whether the server is
    /// closing, after which no connection may be suspended any more.
    private let suspended = Mutex<(closing: Bool, waiting: [UInt64: Responder])>((false, [:]))
    /// Responses still streaming, by request id: ended first at shutdown.
    private let streams = Mutex<(closing: Bool, open: [UInt64: ResponseStream])>((false, [:]))
    private let bufferedBodyBytes = Atomic<Int>(0)
    private let requestCounter = Atomic<UInt64>(0)

    public init(configuration: Configuration, logger: Logger, observer: (any HTTPServerObserver)? = nil,
                handler: @escaping Handler) {
        self.configuration = configuration
        self.logger = logger
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
    fileprivate func noteSuspending(_ responder: Responder, id: UInt64) -> Bool {
        suspended.withLock { state in
            guard !state.closing else { return false }
            state.waiting[id] = responder
            return true
        }
    }

    fileprivate func noteResumed(id: UInt64) {
        _ = suspended.withLock { $0.waiting.removeValue(forKey: id) }
    }

    // MARK: - Called by MHD on its worker threads

    /// One call per chunk: the first announces the request, the middle ones
    /// carry body bytes, the last (no bytes) means the request is complete.
    fileprivate func access(connection: OpaquePointer, url: UnsafePointer<CChar>, method: UnsafePointer<CChar>,
                            upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
                            state: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> Bool {
        guard let existing = state.pointee else {
            let id = requestCounter.wrappingAdd(1, ordering: .relaxed).newValue
            let pending = PendingRequest(id: id)
            state.pointee = Unmanaged.passRetained(pending).toOpaque()
            inFlight.wrappingAdd(1, ordering: .relaxed)
            // Refuse an announced oversize body before reading any of it, and
            // shed load when the bodies already held would pass the budget.
            if let declared = header(connection, "Content-Length").flatMap(Int.init), declared > 0 {
                var refusal: APIError?
                if declared > configuration.maxBodyBytes {
                    refusal = .payloadTooLarge(limit: configuration.maxBodyBytes)
                } else if !reserveBody(declared, for: pending) {
                    refusal = .overloaded
                } else {
                    // One allocation, not a copy each time the body outgrows its buffer.
                    pending.body.reserveCapacity(declared)
                }
                if let refusal {
                    pending.answered = true
                    queue(.error(refusal), on: connection, request: label(pending, method, url), route: -1)
                }
            }
            return true
        }
        let pending = Unmanaged<PendingRequest>.fromOpaque(existing).takeUnretainedValue()
        let size = uploadSize.pointee
        if size > 0 {
            pending.receivedBytes += size
            if !pending.answered && !pending.overloaded && pending.receivedBytes <= configuration.maxBodyBytes,
               let upload {
                // A chunked body reserves as it grows; a declared one already has.
                if pending.receivedBytes <= pending.reservedBytes
                    || reserveBody(pending.receivedBytes - pending.reservedBytes, for: pending) {
                    upload.withMemoryRebound(to: UInt8.self, capacity: size) { bytes in
                        pending.body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: size))
                    }
                } else {
                    pending.overloaded = true
                }
            }
            uploadSize.pointee = 0
            if pending.receivedBytes > configuration.maxBodyBytes || pending.overloaded { pending.body = [] }
            // A body without Content-Length (chunked) that outgrows the limit
            // is drained, not kept, to answer 413 at its end (libmicrohttpd
            // cannot answer mid-body); past a bound the connection is cut.
            return pending.receivedBytes <= configuration.maxBodyBytes + Self.drainLimit
        }
        guard !pending.answered else {
            // MHD calls once more for a request resumed after its answer was
            // set from another thread: queue it here, on its worker thread.
            if let responder = pending.responder, let response = responder.takeResumedAnswer() {
                responder.queue(response)
            }
            return true
        }
        pending.answered = true
        guard pending.receivedBytes <= configuration.maxBodyBytes, !pending.overloaded else {
            let refusal: APIError = pending.overloaded ? .overloaded : .payloadTooLarge(limit: configuration.maxBodyBytes)
            queue(.error(refusal), on: connection, request: label(pending, method, url), route: -1)
            return true
        }
        let query = arguments(connection)
        var request = Request(
            method: String(cString: method), path: String(cString: url),
            query: query.first, authorization: header(connection, "Authorization"),
            contentType: header(connection, "Content-Type"),
            acceptEncoding: header(connection, "Accept-Encoding"), body: pending.body, id: pending.id)
        request.repeatedQuery = query.repeated
        request.contentEncoding = header(connection, "Content-Encoding")
        pending.body = []
        let label = RequestLabel(id: pending.id, started: pending.started, method: request.method, path: request.path)
        let responder = Responder(server: self, connection: ConnectionHandle(pointer: connection), label: label)
        pending.responder = responder
        handler(request, responder)
        responder.handlerReturned()
        return true
    }

    /// The log label of a request refused before a `Request` was built.
    private func label(_ pending: PendingRequest, _ method: UnsafePointer<CChar>,
                       _ url: UnsafePointer<CChar>) -> RequestLabel {
        RequestLabel(id: pending.id, started: pending.started, method: String(cString: method), path: String(cString: url))
    }

    /// Counts `bytes` against the body budget for `pending`; false, and
    /// nothing counted, when the budget would be passed.
    private func reserveBody(_ bytes: Int, for pending: PendingRequest) -> Bool {
        guard bufferedBodyBytes.wrappingAdd(bytes, ordering: .relaxed).newValue <= configuration.maxBufferedBodyBytes else {
            bufferedBodyBytes.wrappingSubtract(bytes, ordering: .relaxed)
            return false
        }
        pending.reservedBytes += bytes
        return true
    }

    fileprivate func completed(state: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        guard let existing = state.pointee else { return }
        state.pointee = nil
        let pending = Unmanaged<PendingRequest>.fromOpaque(existing).takeRetainedValue()
        bufferedBodyBytes.wrappingSubtract(pending.reservedBytes, ordering: .relaxed)
        inFlight.wrappingSubtract(1, ordering: .relaxed)
    }

    fileprivate func log(_ message: String) {
        logger.warning("libmicrohttpd: \(message)")
    }

    /// Hands `response` to MHD, tells the observer and logs the request. On
    /// the connection's worker thread, from within the access callback.
    /// `route`: the handler's tag (`Responder.tag(route:)`).
    fileprivate func queue(_ response: Response, on connection: OpaquePointer, request: RequestLabel, route: Int) {
        let mhdResponse: OpaquePointer?
        if let stream = response.stream {
            mhdResponse = openStream(stream, on: connection, id: request.id)
        } else {
            mhdResponse = response.body.withUnsafeBytes { sensei_response_create($0.baseAddress, $0.count) }
        }
        guard let mhdResponse else {
            logger.warning("could not create a response", metadata: ["request": "\(request.id)"])
            return
        }
        for (name, value) in response.headers {
            _ = sensei_response_add_header(mhdResponse, name, value)
        }
        if sensei_response_queue(connection, UInt32(response.status), mhdResponse) == 0 {
            logger.warning("could not queue a response", metadata: ["request": "\(request.id)"])
        }
        let logs = logger.logLevel <= .info
        guard logs || observer != nil else { return }
        let elapsed = monotonicNanoseconds() &- request.started
        observer?.responded(method: request.method, path: request.path, route: route, status: response.status,
                            seconds: Double(elapsed) * 1e-9)
        guard logs else { return }
        let milliseconds = Double(elapsed / 10_000) / 100
        logger.info("\(request.method) \(request.path) \(response.status) \(formatNumber(milliseconds))ms",
                    metadata: ["request": "\(request.id)"])
    }

    /// The MHD response of a stream, which the server ends at shutdown; once
    /// closing, it is finished at once (what it already holds still goes out).
    private func openStream(_ stream: ResponseStream, on connection: OpaquePointer, id: UInt64) -> OpaquePointer? {
        let closing = streams.withLock { streams in
            streams.open[id] = stream
            return streams.closing
        }
        if closing { stream.finish() }
        return stream.makeResponse(on: ConnectionHandle(pointer: connection)) { [weak self] in
            _ = self?.streams.withLock { $0.open.removeValue(forKey: id) }
        }
    }

    private func header(_ connection: OpaquePointer, _ name: String) -> String? {
        sensei_request_header(connection, name).map { String(cString: $0) }
    }

    private func arguments(_ connection: OpaquePointer) -> QueryArguments {
        var arguments = QueryArguments()
        withUnsafeMutablePointer(to: &arguments) { pointer in
            sensei_request_arguments(connection, argumentVisitor, pointer)
        }
        return arguments
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

/// What the log line of a request needs, kept past the request's buffers.
struct RequestLabel: Sendable {
    let id: UInt64
    /// `monotonicNanoseconds()` at the request's arrival.
    let started: UInt64
    let method: String
    let path: String
}

/// A connection pointer, handed to whichever thread answers it.
struct ConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// How a handler answers one request, now or later.
///
/// Answered while the handler is still running, the response is queued on
/// the worker thread as usual. Otherwise the connection is suspended when the
/// handler returns, the worker goes on serving other connections, and
/// `respond` (from the store's writer thread, say) keeps the response and
/// resumes the connection; MHD then calls the worker back, which queues it.
/// So the thread answering does no more than that (the writer answers for
/// every request of a commit before it can start the next one).
public final class Responder: Sendable {
    private enum State {
        case handling
        case answeredEarly(Response)
        case suspended
        /// Answered while suspended; the worker queues it once resumed.
        case resumed(Response)
        case done
    }

    private let server: HTTPServer
    private let connection: ConnectionHandle
    private let label: RequestLabel
    private let state = Mutex<State>(.handling)
    private let route = Atomic<Int>(-1)

    init(server: HTTPServer, connection: ConnectionHandle, label: RequestLabel) {
        self.server = server
        self.connection = connection
        self.label = label
    }

    /// Names what the request is for the observer (a route's number, say),
    /// before answering; the number means what the observer makes of it.
    public func tag(route: Int) {
        self.route.store(route, ordering: .relaxed)
    }

    /// Answers the request; later calls are ignored.
    public func respond(_ response: Response) {
        let resume = state.withLock { state -> Bool in
            switch state {
            case .handling:
                state = .answeredEarly(response)
                return false
            case .suspended:
                state = .resumed(response)
                server.noteResumed(id: label.id)
                return true
            case .answeredEarly, .resumed, .done:
                return false
            }
        }
        guard resume else { return }
        sensei_connection_resume(connection.pointer)
    }

    /// The answer `respond` left for a resumed connection, once.
    fileprivate func takeResumedAnswer() -> Response? {
        state.withLock { state in
            guard case .resumed(let response) = state else { return nil }
            state = .done
            return response
        }
    }

    /// Queues `response` on the connection's worker thread.
    fileprivate func queue(_ response: Response) {
        server.queue(response, on: connection.pointer, request: label, route: route.load(ordering: .relaxed))
    }

    /// Called on the worker thread once the handler returns.
    func handlerReturned() {
        let early = state.withLock { state -> Response? in
            if case .answeredEarly(let response) = state {
                state = .done
                return response
            }
            // Suspend under the lock, so a `respond` racing in cannot resume
            // a connection that is not suspended yet.
            guard server.noteSuspending(self, id: label.id) else {
                state = .done
                return HTTPServer.stopping
            }
            state = .suspended
            sensei_connection_suspend(connection.pointer)
            return nil
        }
        if let early { queue(early) }
    }
}

/// A request being received. Only the connection's worker thread touches it.
private final class PendingRequest {
    let id: UInt64
    let started = monotonicNanoseconds()
    var body: [UInt8] = []
    var receivedBytes = 0
    /// Counted against the server's body budget until the request completes.
    var reservedBytes = 0
    /// The body budget was spent: answer 503.
    var overloaded = false
    var answered = false
    /// Set once the handler has the request.
    var responder: Responder?

    init(id: UInt64) {
        self.id = id
    }
}

private let accessCallback: sensei_access_fn = { context, connection, url, method, upload, uploadSize, state in
    let server = Unmanaged<HTTPServer>.fromOpaque(context!).takeUnretainedValue()
    return server.access(connection: connection!, url: url!, method: method!, upload: upload,
                         uploadSize: uploadSize!, state: state!) ? 1 : 0
}

private let completedCallback: sensei_completed_fn = { context, state in
    Unmanaged<HTTPServer>.fromOpaque(context!).takeUnretainedValue().completed(state: state!)
}

private let logCallback: sensei_log_fn = { context, message in
    Unmanaged<HTTPServer>.fromOpaque(context!).takeUnretainedValue().log(String(cString: message!))
}

/// A request's query: the first value of each name, and all of a repeated one.
private struct QueryArguments {
    var first: [String: String] = [:]
    var repeated: [String: [String]] = [:]
}

private let argumentVisitor: sensei_argument_fn = { context, key, value in
    guard let key else { return }
    let arguments = context!.assumingMemoryBound(to: QueryArguments.self)
    let name = String(cString: key)
    let text = value.map { String(cString: $0) } ?? ""
    if let earlier = arguments.pointee.first[name] {
        arguments.pointee.repeated[name, default: [earlier]].append(text)
    } else {
        arguments.pointee.first[name] = text
    }
}

/// A request's clock: CLOCK_MONOTONIC read directly, about 60 instructions
/// where `ContinuousClock.now` and the 128-bit `Duration` arithmetic cost
/// some 150 a read and 190 to turn into milliseconds.
private func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
}

private func withOptionalCString<T>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> T) -> T {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}
