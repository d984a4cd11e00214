import SenseiModels

/// What a handler answers: status, headers and body bytes.
public struct Response: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// Set: the body is this stream's, of unknown length, and `body` is unused.
    public var stream: ResponseStream?

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response that stays open, written through `stream` (server-sent events, say).
    public static func streaming(_ stream: ResponseStream, headers: [(name: String, value: String)]) -> Response {
        var response = Response(status: 200, headers: headers)
        response.stream = stream
        return response
    }

    public static let jsonType = "application/json; charset=utf-8"

    /// A JSON body written by `write`.
    public static func json(status: Int = 200, capacity: Int = 256,
                            _ write: (inout JSONWriter) throws -> Void) rethrows -> Response {
        var writer = JSONWriter(capacity: capacity)
        try write(&writer)
        return Response(status: status, headers: [("Content-Type", jsonType)], body: writer.bytes)
    }

    public static func error(_ error: APIError) -> Response {
        var headers = [(name: "Content-Type", value: jsonType)]
        for (name, value) in error.headers.sorted(by: { $0.key < $1.key }) { headers.append((name, value)) }
        return Response(status: error.status, headers: headers, body: error.body)
    }

    public static let noContent = Response(status: 204)
}
