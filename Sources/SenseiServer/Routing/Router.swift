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
        fileprivate let segments: [Segment]
        let action: Action
    }

    /// The values of a route's `:name` segments.
    public struct Parameters: Sendable {
        fileprivate var values: [String: String] = [:]
        public subscript(name: String) -> String { values[name] ?? "" }
    }

    fileprivate enum Segment: Sendable, Equatable {
        case literal(String)
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
        let segments = Self.split(pattern).map { $0.hasPrefix(":") ? Segment.parameter(String($0.dropFirst())) : .literal(String($0)) }
        routes.append(Route(method: method, pattern: pattern, scope: scope, segments: segments, action: action))
    }

    public func match(method: String, path: String) -> Match {
        let parts = Self.split(path)
        // HEAD is GET without a body; libmicrohttpd drops the body.
        let wanted = method == "HEAD" ? "GET" : method
        var allowed: [String] = []
        for route in routes {
            guard let parameters = Self.bind(route.segments, to: parts) else { continue }
            if route.method == wanted { return .found(route, parameters) }
            if !allowed.contains(route.method) { allowed.append(route.method) }
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed)
    }

    private static func bind(_ segments: [Segment], to parts: [Substring]) -> Parameters? {
        guard segments.count == parts.count else { return nil }
        var parameters = Parameters()
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case .literal(let literal): guard part == literal else { return nil }
            case .parameter(let name): parameters.values[name] = String(part)
            }
        }
        return parameters
    }

    private static func split(_ path: String) -> [Substring] {
        var parts = path.split(separator: "/", omittingEmptySubsequences: false)
        if parts.first == "" { parts.removeFirst() }
        if parts.count > 1 && parts.last == "" { parts.removeLast() }
        if parts == [""] { return [] }
        return parts
    }
}
