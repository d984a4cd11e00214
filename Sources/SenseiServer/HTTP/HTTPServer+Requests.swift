import CSenseiHTTP
import SenseiModels

#if canImport(Glibc)
import Glibc
#endif

/// A request's life on its connection's worker thread, one method a phase.
///
/// libmicrohttpd calls the access callback once per chunk: the first call
/// announces the request, the middle ones carry body bytes, the last (no
/// bytes) says the request is complete; a request answered from another
/// thread gets one call more once its connection is resumed.
extension HTTPServer {
    fileprivate func access(connection: OpaquePointer, url: UnsafePointer<CChar>, method: UnsafePointer<CChar>,
                            upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
                            state: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> Bool {
        guard let existing = state.pointee else {
            state.pointee = Unmanaged.passRetained(announce(connection: connection, url: url, method: method))
                .toOpaque()
            return true
        }
        let pending = Unmanaged<PendingRequest>.fromOpaque(existing).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            defer { uploadSize.pointee = 0 }
            return receiveBodyChunk(upload, size: uploadSize.pointee, for: pending)
        }
        if pending.answered {
            resumed(pending)
        } else {
            complete(pending, connection: connection, url: url, method: method)
        }
        return true
    }

    /// Headers are in: refuses an announced oversize body before reading any
    /// of it, and sheds load when the bodies already held would pass the budget.
    private func announce(connection: OpaquePointer, url: UnsafePointer<CChar>,
                          method: UnsafePointer<CChar>) -> PendingRequest {
        let pending = PendingRequest(id: requestCounter.wrappingAdd(1, ordering: .relaxed).newValue)
        inFlight.wrappingAdd(1, ordering: .relaxed)
        guard let declared = header(connection, "Content-Length").flatMap(Int.init), declared > 0 else { return pending }
        let refusal: APIError
        if declared > configuration.maxBodyBytes {
            refusal = .payloadTooLarge(limit: configuration.maxBodyBytes)
        } else if !reserveBody(declared, for: pending) {
            refusal = .overloaded
        } else {
            // One allocation, not a copy each time the body outgrows its buffer.
            pending.body.reserveCapacity(declared)
            return pending
        }
        pending.answered = true
        queue(.error(refusal), on: connection, request: label(pending, method, url), route: -1)
        return pending
    }

    /// Keeps a chunk of the body while it fits the limit and the budget;
    /// false cuts the connection.
    private func receiveBodyChunk(_ upload: UnsafePointer<CChar>?, size: Int, for pending: PendingRequest) -> Bool {
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
        if pending.receivedBytes > configuration.maxBodyBytes || pending.overloaded { pending.body = [] }
        // A body without Content-Length (chunked) that outgrows the limit
        // is drained, not kept, to answer 413 at its end (libmicrohttpd
        // cannot answer mid-body); past a bound the connection is cut.
        return pending.receivedBytes <= configuration.maxBodyBytes + Self.drainLimit
    }

    /// The whole request is in: refuses what the body phase ruled out, or
    /// hands the request to the handler.
    private func complete(_ pending: PendingRequest, connection: OpaquePointer, url: UnsafePointer<CChar>,
                          method: UnsafePointer<CChar>) {
        pending.answered = true
        guard pending.receivedBytes <= configuration.maxBodyBytes, !pending.overloaded else {
            let refusal: APIError = pending.overloaded ? .overloaded : .payloadTooLarge(limit: configuration.maxBodyBytes)
            queue(.error(refusal), on: connection, request: label(pending, method, url), route: -1)
            return
        }
        let query = arguments(connection)
        var request = Request(
            method: String(cString: method), path: String(cString: url),
            query: query.first, authorization: header(connection, "Authorization"),
            contentType: header(connection, "Content-Type"),
            acceptEncoding: header(connection, "Accept-Encoding"), body: pending.body, id: pending.id)
        request.repeatedQuery = query.repeated
        request.contentEncoding = header(connection, "Content-Encoding")
        request.accept = header(connection, "Accept")
        if request.method == "GET" { request.ifNoneMatch = header(connection, "If-None-Match") }
        pending.body = []
        let label = RequestLabel(id: pending.id, started: pending.started, method: request.method, path: request.path)
        let responder = Responder(server: self, connection: ConnectionHandle(pointer: connection), label: label)
        pending.responder = responder
        handler(request, responder)
        responder.handlerReturned()
    }

    /// MHD calls once more for a request resumed after its answer was set
    /// from another thread: queue it here, on its worker thread.
    private func resumed(_ pending: PendingRequest) {
        if let responder = pending.responder, let response = responder.takeResumedAnswer() {
            responder.queue(response)
        }
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

    /// The request is over (answered and sent, or cut off): frees its state.
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

let accessCallback: sensei_access_fn = { context, connection, url, method, upload, uploadSize, state in
    let server = Unmanaged<HTTPServer>.fromOpaque(context!).takeUnretainedValue()
    return server.access(connection: connection!, url: url!, method: method!, upload: upload,
                         uploadSize: uploadSize!, state: state!) ? 1 : 0
}

let completedCallback: sensei_completed_fn = { context, state in
    Unmanaged<HTTPServer>.fromOpaque(context!).takeUnretainedValue().completed(state: state!)
}

let logCallback: sensei_log_fn = { context, message in
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
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
}
