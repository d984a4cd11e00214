import SenseiModels

/// `GET /stream`: committed readings as server-sent events, as they commit.
struct StreamRoutes {
    let store: any SensorStore
    let streams: ReadingStreams
    /// Longest `timeout` accepted, in seconds (a day).
    static let maximumTimeout = 86_400

    func addRoutes(to router: inout Router) {
        router.add("GET", "/stream", scope: .read) { request, _ in try open(request) }
    }

    /// `sensor` (id or code; repeatable or comma-separated; none: every
    /// sensor), `limit` (end after that many readings) and `timeout` (end
    /// after that many seconds): a client that cannot close a stream itself,
    /// a script or a fuzzer, still gets an end.
    private func open(_ request: Request) throws -> Response {
        let parameters = QueryParameters(request)
        var watch = ReadingStreams.Watch()
        let references = request.queryValues("sensor").flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
        if !references.isEmpty {
            var ids = Set<Int64>()
            for text in references {
                let reference = try RequestDecoding.sensorReference(String(text))
                guard let sensor = try store.sensor(reference) else { throw StoreError.sensorNotFound(reference) }
                ids.insert(sensor.id)
            }
            watch.sensorIDs = ids
        }
        watch.limit = try parameters.optionalInteger("limit", in: 1...ReadingRoutes.maximumLimit)
        if let seconds = try parameters.optionalInteger("timeout", in: 1...Self.maximumTimeout) {
            watch.deadline = .now + .seconds(seconds)
        }
        guard let stream = streams.open(watch) else {
            // Between ending its streams and closing its port, a stopping
            // server still answers: say so, not that it is full.
            let reason = streams.isStopped ? "the server is stopping"
                : "\(streams.configuration.maxListeners) streams are open, the most this server allows"
            throw APIError(status: 503, message: reason + "; retry later", headers: ["Retry-After": "5"])
        }
        return .streaming(stream, headers: [
            ("Content-Type", "text/event-stream; charset=utf-8"),
            ("Cache-Control", "no-cache"),
            // Tells nginx not to buffer the events.
            ("X-Accel-Buffering", "no"),
        ])
    }
}
