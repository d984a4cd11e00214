import SenseiModels

/// The route table: method and path pattern → required scope and handler.
///
/// Patterns are literal segments and `:name` parameters, matched whole; a
/// trailing slash is ignored. A path that matches with another method is a
/// 405 listing the methods that would work.
public struct Router: Sendable {
    public typealias Handler = @Sendable (Request, Parameters) throws -> Response
    /// A handler that answers later through `reply` (a write waiting for its
    /// group commit); what it throws before deferring is answered at once.
    public typealias DeferredHandler = @Sendable (Request, Parameters, _ reply: @escaping Reply) throws -> Void
    public typealias Reply = @Sendable (Result<Response, any Error>) -> Void

    enum Action: Sendable {
        case immediate(Handler)
        case deferred(DeferredHandler)
    }

    public struct Route: Sendable {
        public let method: String
        public let pattern: String
        /// nil: open to anyone (only `GET /health`).
        public let scope: Scope?
        /// Its place in the table, from 0: how metrics tell routes apart.
        public let index: Int
        fileprivate let segments: [Segment]
        let action: Action
    }

    /// The values of a route's `:name` segments: a route has one or two, so
    /// a list searched in order, not a dictionary hashing each name.
    public struct Parameters: Sendable {
        fileprivate var values: [(name: String, value: String)] = []
        public subscript(name: String) -> String { values.first { $0.name == name }?.value ?? "" }
    }

    fileprivate enum Segment: Sendable, Equatable {
        /// Its UTF-8 bytes, compared with the path's.
        case literal([UInt8])
        case parameter(String)
    }

    public enum Match {
        case found(Route, Parameters)
        case methodNotAllowed([String])
        case notFound
    }

    public private(set) var routes: [Route] = []

    public init() {}

    public mutating func add(_ method: String, _ pattern: String, scope: Scope?, _ handler: @escaping Handler) {
        add(method, pattern, scope: scope, action: .immediate(handler))
    }

    public mutating func addDeferred(_ method: String, _ pattern: String, scope: Scope?,
                                     _ handler: @escaping DeferredHandler) {
        add(method, pattern, scope: scope, action: .deferred(handler))
    }

    private mutating func add(_ method: String, _ pattern: String, scope: Scope?, action: Action) {
        var pattern = pattern
        let segments = pattern.withUTF8 { bytes in
            Self.split(bytes).map { range in
                bytes[range].first == UInt8(ascii: ":")
                    ? Segment.parameter(String(decoding: bytes[range].dropFirst(), as: UTF8.self))
                    : .literal(Array(bytes[range]))
            }
        }
        routes.append(Route(method: method, pattern: pattern, scope: scope, index: routes.count,
                            segments: segments, action: action))
    }

    public func match(method: String, path: String) -> Match {
        // HEAD is GET without a body; libmicrohttpd drops the body.
        let wanted = method == "HEAD" ? "GET" : method
        var path = path
        return path.withUTF8 { bytes in
            let parts = Self.split(bytes)
            var allowed: [String] = []
            for route in routes where Self.fits(route.segments, parts, of: bytes) {
                if route.method == wanted { return .found(route, Self.bind(route.segments, to: parts, of: bytes)) }
                if !allowed.contains(route.method) { allowed.append(route.method) }
            }
            return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed)
        }
    }

    /// Whether the path has the pattern's length and literals; checked
    /// before any parameter is copied, as most routes do not fit.
    private static func fits(_ segments: [Segment], _ parts: [Range<Int>], of path: UnsafeBufferPointer<UInt8>) -> Bool {
        guard segments.count == parts.count else { return false }
        for (segment, part) in zip(segments, parts) {
            guard case .literal(let literal) = segment else { continue }
            guard literal.withUnsafeBufferPointer({ sameBytes($0, UnsafeBufferPointer(rebasing: path[part])) })
            else { return false }
        }
        return true
    }

    private static func bind(_ segments: [Segment], to parts: [Range<Int>], of path: UnsafeBufferPointer<UInt8>) -> Parameters {
        var parameters = Parameters()
        for (segment, part) in zip(segments, parts) {
            if case .parameter(let name) = segment {
                parameters.values.append((name, String(decoding: path[part], as: UTF8.self)))
            }
        }
        return parameters
    }

    /// The path's segments between slashes, without a leading or trailing
    /// one, as ranges of its UTF-8 bytes: `String.split` walks grapheme
    /// clusters, which cost more than the rest of routing together, and each
    /// `Substring` retained the path.
    private static func split(_ path: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        var parts: [Range<Int>] = []
        parts.reserveCapacity(8)
        var start = path.first == UInt8(ascii: "/") ? 1 : 0
        for index in start..<path.count where path[index] == UInt8(ascii: "/") {
            parts.append(start..<index)
            start = index + 1
        }
        // A trailing slash is ignored; "", "/" and "//" are the root.
        if start < path.count { parts.append(start..<path.count) }
        return parts.count == 1 && parts[0].isEmpty ? [] : parts
    }
}
