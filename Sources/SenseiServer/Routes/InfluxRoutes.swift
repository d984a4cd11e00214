import SenseiLineProtocol
import SenseiModels

/// InfluxDB's write API, so Telegraf, Home Assistant, Node-RED and the Influx
/// device libraries write into Sensei unchanged: `POST /write` (1.x), `POST
/// /api/v2/write` (2.x) and `GET|HEAD /ping`. `/query` is `InfluxQueryRoutes`.
/// Lines become sensors as `LineSeries` says; answers follow InfluxDB's per API
/// version (`InfluxResponses`), and a 204 only once the commit is durable.
struct InfluxRoutes {
    let store: any ReadingStore
    let metrics: ServerMetrics
    /// InfluxDB's default `max-body-size` (25 MB), applied to gzip bodies once
    /// inflated; a plain body is under the server's body limit already.
    static let maximumInflatedBytes = 25_000_000

    enum APIVersion {
        case v1, v2
    }

    func addRoutes(to router: inout Router) {
        router.add("GET", "/ping", scope: nil) { request, _ in ping(request) }
        router.addDeferred("POST", "/write", scope: .write) { request, _, reply in
            write(request, .v1, reply: reply)
        }
        router.addDeferred("POST", "/api/v2/write", scope: .write) { request, _, reply in
            write(request, .v2, reply: reply)
        }
    }

    /// 204, or with `verbose` (anything but `0`/`false`) 200 `{"version": …}`, as InfluxDB 1.x.
    private func ping(_ request: Request) -> Response {
        guard let verbose = request.query["verbose"], !["", "0", "false"].contains(verbose) else {
            return InfluxResponses.noContent()
        }
        return InfluxResponses.json { writer in
            writer.beginObject()
            writer.key("version")
            writer.string(InfluxResponses.version)
            writer.endObject()
        }
    }

    private func write(_ request: Request, _ version: APIVersion, reply: @escaping Router.Reply) {
        let receivedAt = Timestamp.now()
        let precision: LinePrecision
        switch version {
        case .v1:
            guard let chosen = LinePrecision(v1: request.query["precision"]) else {
                return reply(.success(InfluxResponses.v1Error(400, "invalid precision \"\(request.query["precision"] ?? "")\": "
                                                              + "valid precisions are n, ns, u, us, µ, ms, s, m and h")))
            }
            // InfluxDB 1.x needs a database; any name is accepted, all go to the one store.
            guard let database = request.query["db"], !database.isEmpty else {
                return reply(.success(InfluxResponses.v1Error(400, "database is required")))
            }
            precision = chosen
        case .v2:
            guard let chosen = LinePrecision(v2: request.query["precision"]) else {
                return reply(.success(InfluxResponses.v2Error(
                    400, code: "invalid", "invalid precision; valid precision units are ns, us, ms, and s")))
            }
            precision = chosen
        }
        let body: [UInt8]
        switch Self.decodedBody(request) {
        case .success(let decoded): body = decoded
        case .failure(let failure): return reply(.success(Self.response(for: failure, version)))
        }
        if version == .v2 && body.isEmpty {
            // Home Assistant tests a 2.x connection by writing nothing and expecting this 400.
            return reply(.success(InfluxResponses.v2Error(400, code: "invalid", "writing requires points")))
        }
        let (batches, errors) = Self.parse(body, precision: precision, receivedAt: receivedAt)
        if !errors.isEmpty && (batches.isEmpty || version == .v2) {
            // Nothing good (1.x), or any bad line (2.x, all or nothing): InfluxDB names every bad line.
            let message = errors.joined(separator: "\n")
            return reply(.success(version == .v1 ? InfluxResponses.v1Error(400, message)
                                                 : InfluxResponses.v2Error(400, code: "invalid", message)))
        }
        // The name reads back in SHOW DATABASES (Home Assistant checks it); a
        // failure to note it must not refuse the points.
        if let database = request.query[version == .v1 ? "db" : "bucket"] { try? store.recordInfluxDatabase(database) }
        guard !batches.isEmpty else { return reply(.success(InfluxResponses.noContent())) }
        store.ingest(batches, allOrNothing: false, receivedAt: receivedAt) { result in
            reply(result.map { outcome in
                metrics.readingsAccepted(outcome.accepted)
                return Self.response(for: outcome, parseErrors: errors, version)
            })
        }
    }

    /// The good lines' points, by series, and InfluxDB's text for each bad line.
    static func parse(_ body: [UInt8], precision: LinePrecision, receivedAt: Timestamp) -> ([SeriesBatch], [String]) {
        // Without a timestamp, InfluxDB stamps a line with the receive time cut
        // to the precision; finer than a second, the store's own receive-time
        // placement (never two readings on one millisecond) does better.
        let unit = precision.nanosecondsPerUnit / 1_000_000
        let defaultTimestamp = unit >= 1000
            ? Timestamp(milliseconds: receivedAt.milliseconds.alignedDown(to: unit)) : nil
        var errors: [String] = []
        var parser = LineProtocolParser(precision: precision)
        return body.withUnsafeBufferPointer { buffer in
            var series = LineSeries(body: buffer, defaultTimestamp: defaultTimestamp)
            parser.parse(buffer, accept: { series.add($0) }, refuse: { errors.append($0.description) })
            return (series.batches, errors)
        }
    }

    /// The body as sent, or inflated when it says `Content-Encoding: gzip`.
    static func decodedBody(_ request: Request) -> Result<[UInt8], GzipInflater.Failure> {
        guard let encoding = request.contentEncoding?.lowercased(), encoding == "gzip" || encoding == "x-gzip" else {
            return .success(request.body)
        }
        return Result { () throws(GzipInflater.Failure) in
            try GzipInflater.inflate(request.body, limit: maximumInflatedBytes)
        }
    }

    static func response(for failure: GzipInflater.Failure, _ version: APIVersion) -> Response {
        switch (failure, version) {
        case (.tooLarge, .v1): InfluxResponses.v1Error(413, "Request Entity Too Large")
        case (.tooLarge, .v2): InfluxResponses.v2Error(413, code: "request too large", "unable to read data: points batch is too large")
        case (.corrupt(let reason), .v1): InfluxResponses.v1Error(400, "gzip: \(reason)")
        case (.corrupt(let reason), .v2): InfluxResponses.v2Error(400, code: "invalid", "unable to read data: gzip: \(reason)")
        }
    }

    /// 204 when every point is stored; else InfluxDB's partial write: 1.x 400
    /// `partial write: <reason> dropped=N` (the store's refusals first, then
    /// the bad lines), 2.x 422 for refused points.
    static func response(for outcome: SeriesIngestOutcome, parseErrors: [String], _ version: APIVersion) -> Response {
        if let first = outcome.refused.first {
            let reason = "partial write: \(first.error) dropped=\(outcome.refused.count)"
            return version == .v1 ? InfluxResponses.v1Error(400, reason)
                : InfluxResponses.v2Error(422, code: "unprocessable entity", "failure writing points to database: " + reason)
        }
        if !parseErrors.isEmpty {
            return InfluxResponses.v1Error(400, "partial write: \(parseErrors.joined(separator: "\n")) dropped=0")
        }
        return InfluxResponses.noContent()
    }
}
