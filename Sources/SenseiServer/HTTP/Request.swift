/// A complete HTTP request, copied out of libmicrohttpd so that routing and
/// handlers never see a C pointer.
public struct Request: Sendable {
    public var method: String
    /// Percent-decoded path, without the query.
    public var path: String
    /// Query arguments, percent-decoded; the first of a repeated name wins.
    public var query: [String: String]
    /// Every value of a repeated argument (`sensor=a&sensor=b`), in order;
    /// only names given more than once are here.
    public var repeatedQuery: [String: [String]] = [:]
    public var authorization: String?
    public var contentType: String?
    /// Which codings the client takes for the answer (`gzip`, q-values).
    public var acceptEncoding: String?
    /// `Content-Encoding`: line-protocol writers send `gzip` bodies.
    public var contentEncoding: String?
    /// `Accept`: InfluxDB's /query answers CSV for `application/csv`.
    public var accept: String?
    /// `If-None-Match` of a GET: the entity tags the client holds.
    public var ifNoneMatch: String?
    public var body: [UInt8]
    /// Numbers the request in the logs.
    public var id: UInt64

    public init(method: String, path: String, query: [String: String] = [:], authorization: String? = nil,
                contentType: String? = nil, acceptEncoding: String? = nil, body: [UInt8] = [], id: UInt64 = 0) {
        self.method = method
        self.path = path
        self.query = query
        self.authorization = authorization
        self.contentType = contentType
        self.acceptEncoding = acceptEncoding
        self.body = body
        self.id = id
    }

    /// Every value given for `name`, in order.
    public func queryValues(_ name: String) -> [String] {
        repeatedQuery[name] ?? query[name].map { [$0] } ?? []
    }
}
