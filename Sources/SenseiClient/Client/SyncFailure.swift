/// Why a sync did not complete: what `APIClient`, the syncer and the cache
/// steps throw. The dashboard carries it as is (`Msg.syncFailed`).
public enum SyncFailure: Hashable, Sendable {
    /// 401: the token is unknown.
    case unauthorized
    /// 403: the token may not read.
    case forbidden
    /// No answer: connection refused, DNS failure, timeout. Means offline.
    case unreachable(String)
    /// Any other error status, with the server's `{"error": …}` message.
    case server(status: Int, message: String)
    /// An answer without the documented shape.
    case invalidResponse(String)
    /// The server answered but the cache could not keep it (disk full, say).
    case cache(String)

    /// Whether the server could not be reached at all (the dashboard is offline).
    public var isOffline: Bool {
        if case .unreachable = self { return true }
        return false
    }

    /// What the status bar says.
    public var message: String {
        switch self {
        case .unauthorized: "unauthorized: check your token"
        case .forbidden: "forbidden: the token may not read sensors"
        case .unreachable(let reason): "server unreachable: \(reason)"
        case .server(let status, let message): "server error \(status): \(message)"
        case .invalidResponse(let reason): "unexpected answer from the server: \(reason)"
        case .cache(let reason): "cache: \(reason)"
        }
    }
}
