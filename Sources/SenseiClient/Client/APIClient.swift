import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SenseiModels
import Synchronization

/// The dashboard's side of the v1 API: the reads a sync needs.
///
/// Every failure is a `SyncFailure`, so the caller only decides what to show.
/// The token goes in the Authorization header and nowhere else: it is not in
/// URLs, descriptions or error messages.
public final class APIClient: Sendable, CustomStringConvertible {
    /// The server's base URL, e.g. `http://localhost:3000` (a path prefix is kept).
    public let baseURL: URL
    let token: String
    let session: URLSession
    /// The last sensor list's `ETag`, for `sensorList(unchanged:)`.
    private let lastSensorListTag = Mutex<String?>(nil)

    /// The most readings the server returns in one answer.
    public static let maximumPageSize = 10_000

    /// `timeout` bounds each wait for bytes; a whole answer gets three times as long,
    /// so a dead server or a black-holed packet is an `.unreachable` in seconds.
    /// At least 1 s: Linux's URLSession times out at once on anything shorter.
    public init(baseURL: URL, token: String, timeout: TimeInterval = 10) {
        self.baseURL = baseURL
        self.token = token
        let timeout = max(1, timeout)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout * 3
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpShouldSetCookies = false
        session = URLSession(configuration: configuration)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    public var description: String { "APIClient(\(baseURL.absoluteString))" }

    /// Whether the server is on this machine (a loopback host), where
    /// compressing an answer costs both sides CPU and saves nothing.
    var isLoopback: Bool {
        guard let host = baseURL.host?.lowercased() else { return false }
        return host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
    }

    /// `GET /sensors`: every sensor with its latest reading and count.
    public func sensors() async throws(SyncFailure) -> [Sensor] {
        try sensors(in: try await get("/sensors", query: []))
    }

    /// The `sensors` array of a `GET /sensors` answer.
    private func sensors(in body: JSONValue) throws(SyncFailure) -> [Sensor] {
        try items(of: body, key: "sensors", route: "/sensors") { item throws(WireFormatError) in try Sensor(json: item) }
    }

    /// `GET /sensors`, asking with the last answer's `ETag` whether anything
    /// changed: a quiet house of 10,000 sensors answers 304 and no body, and
    /// `unchanged` gives the list as last kept (the cache's), not a copy
    /// held here. `changed` is false then.
    public func sensorList(unchanged: () throws(SyncFailure) -> [Sensor]) async throws(SyncFailure)
        -> (sensors: [Sensor], changed: Bool) {
        let tag = lastSensorListTag.withLock { $0 }
        let answer = try await fetch("/sensors", query: [], ifNoneMatch: tag)
        if answer.status == 304, tag != nil { return (try unchanged(), false) }
        let sensors = try sensors(in: try parse(answer, path: "/sensors"))
        lastSensorListTag.withLock { $0 = answer.entityTag }
        return (sensors, true)
    }

    /// The next `sensorList` takes the whole list again (the last one could
    /// not be kept).
    public func forgetSensorList() {
        lastSensorListTag.withLock { $0 = nil }
    }

    /// `GET /sensors/<id>/data?order=asc`: up to `limit` readings at or after
    /// `after` and at or before `before` (both inclusive: to page on, pass the
    /// last timestamp + 1 ms), oldest first.
    public func readings(sensorId: Int64, after: Timestamp?, before: Timestamp? = nil,
                         limit: Int = maximumPageSize) async throws(SyncFailure) -> [Reading] {
        var query = [URLQueryItem(name: "order", value: "asc"),
                     URLQueryItem(name: "limit", value: String(min(max(1, limit), Self.maximumPageSize)))]
        if let after { query.append(URLQueryItem(name: "after", value: after.rfc3339)) }
        if let before { query.append(URLQueryItem(name: "before", value: before.rfc3339)) }
        return try await data(of: sensorId, query: query) { item throws(WireFormatError) in try Reading(json: item) }
    }

    /// `GET /sensors/<id>/data?buckets=N`: [after, before] (inclusive) cut in
    /// `count` equal spans, one bucket per non-empty span, oldest first.
    public func buckets(sensorId: Int64, after: Timestamp, before: Timestamp, count: Int)
        async throws(SyncFailure) -> [Bucket] {
        let query = [URLQueryItem(name: "after", value: after.rfc3339),
                     URLQueryItem(name: "before", value: before.rfc3339),
                     URLQueryItem(name: "buckets", value: String(count))]
        return try await data(of: sensorId, query: query) { item throws(WireFormatError) in try Bucket(json: item) }
    }

    /// `GET /sensors/<id>/aggregates?level=minute|hour`: up to `limit` rows
    /// whose start is in [after, before] (inclusive, nil: unbounded), oldest first.
    public func aggregates(sensorId: Int64, level: String, after: Timestamp?, before: Timestamp?,
                           limit: Int = maximumPageSize) async throws(SyncFailure) -> [SpanAggregate] {
        var query = [URLQueryItem(name: "level", value: level),
                     URLQueryItem(name: "limit", value: String(min(max(1, limit), Self.maximumPageSize)))]
        if let after { query.append(URLQueryItem(name: "after", value: after.rfc3339)) }
        if let before { query.append(URLQueryItem(name: "before", value: before.rfc3339)) }
        return try await data(of: sensorId, route: "aggregates", query: query) { item throws(WireFormatError) in
            try SpanAggregate(json: item)
        }
    }

    /// The `data` array of one of a sensor's routes, each item decoded.
    private func data<Item>(of sensorId: Int64, route: String = "data", query: [URLQueryItem],
                            _ decode: (JSONValue) throws(WireFormatError) -> Item) async throws(SyncFailure) -> [Item] {
        let path = "/sensors/\(sensorId)/\(route)"
        return try items(of: try await get(path, query: query), key: "data", route: path, decode)
    }

    /// The `key` array of an answer from `route`, each item decoded; a
    /// missing array or a malformed item is an `.invalidResponse` naming the route.
    func items<Item>(of body: JSONValue, key: String, route: String,
                     _ decode: (JSONValue) throws(WireFormatError) -> Item) throws(SyncFailure) -> [Item] {
        guard let items = body[key]?.arrayValue else {
            throw .invalidResponse("GET \(route): no \"\(key)\" array")
        }
        do {
            return try items.map { item throws(WireFormatError) in try decode(item) }
        } catch {
            throw .invalidResponse("GET \(route): \(error)")
        }
    }

    /// One authorized GET whose 200 answer is parsed as JSON.
    func get(_ path: String, query: [URLQueryItem]) async throws(SyncFailure) -> JSONValue {
        try parse(try await fetch(path, query: query), path: path)
    }

    /// An answer's status, body and entity tag.
    struct Answer {
        var status: Int
        var bytes: [UInt8]
        var entityTag: String?
    }

    /// One authorized GET; any status but 200 and 304 is its `SyncFailure`.
    /// `uncompressed`: asks for the body as it is (`Accept-Encoding:
    /// identity`) rather than gzip'd, which URLSession asks for by default.
    func fetch(_ path: String, query: [URLQueryItem], ifNoneMatch: String? = nil,
               uncompressed: Bool = false) async throws(SyncFailure) -> Answer {
        let url = try url(for: path, query: query)
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if uncompressed { request.setValue("identity", forHTTPHeaderField: "Accept-Encoding") }
        if let ifNoneMatch { request.setValue(ifNoneMatch, forHTTPHeaderField: "If-None-Match") }
        let data: Data, response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw Self.failure(for: error)
        }
        guard let http = response as? HTTPURLResponse else {
            throw .invalidResponse("GET \(path): not an HTTP answer")
        }
        let bytes = [UInt8](data)
        guard http.statusCode == 200 || http.statusCode == 304 else {
            throw Self.failure(status: http.statusCode, body: bytes)
        }
        return Answer(status: http.statusCode, bytes: bytes, entityTag: http.value(forHTTPHeaderField: "ETag"))
    }

    /// A 200 answer's body as JSON (a 304 is not one).
    func parse(_ answer: Answer, path: String) throws(SyncFailure) -> JSONValue {
        guard answer.status == 200 else { throw .invalidResponse("GET \(path): \(answer.status) without having asked") }
        do {
            return try JSONParser.parse(answer.bytes)
        } catch {
            throw .invalidResponse("GET \(path): \(error)")
        }
    }

    /// The base URL with `path` appended under any prefix it has, and `query`.
    func url(for path: String, query: [URLQueryItem]) throws(SyncFailure) -> URL {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
            throw .unreachable("invalid server URL")
        }
        var prefix = components.percentEncodedPath
        while prefix.hasSuffix("/") { prefix.removeLast() }
        components.percentEncodedPath = prefix + path
        components.queryItems = query.isEmpty ? nil : query
        guard let url = components.url else { throw .unreachable("invalid server URL") }
        return url
    }
}
