import CSenseiHTTP
import SenseiModels

/// Queueing answers: on the connection's worker thread, from within the
/// access callback (at once, or once a suspended connection is resumed).
extension HTTPServer {
    fileprivate func log(_ message: String) {
        logger.warning("libmicrohttpd: \(message)")
    }

    /// Hands `response` to MHD, tells the observer and logs the request. On
    /// the connection's worker thread, from within the access callback.
    /// `route`: the handler's tag (`Responder.tag(route:)`).
    func queue(_ response: Response, on connection: OpaquePointer, request: RequestLabel, route: Int) {
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
            // withCString lends a native string's own bytes; passing the
            // String itself made a C copy of each name and value.
            _ = name.withCString { name in value.withCString { sensei_response_add_header(mhdResponse, name, $0) } }
        }
        if sensei_response_queue(connection, UInt32(response.status), mhdResponse) == 0 {
            logger.warning("could not queue a response", metadata: ["request": "\(request.id)"])
        }
        guard requestLog.isOn || observer != nil else { return }
        let elapsed = monotonicNanoseconds() &- request.started
        observer?.responded(method: request.method, path: request.path, route: route, status: response.status,
                            seconds: Double(elapsed) * 1e-9)
        requestLog.record(RequestLine(id: request.id, method: request.method, path: request.path,
                                      status: response.status, elapsedNanoseconds: elapsed))
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
}
