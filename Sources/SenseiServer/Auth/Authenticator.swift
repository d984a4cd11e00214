import Logging
import SenseiModels
import Synchronization

/// Turns an `Authorization` header into the scope it grants, or nil.
///
/// Tokens are found by their SHA-256 digest, so no comparison runs over the
/// secret itself. The pre-shared `SENSEI_TOKEN` is an admin token kept only
/// as a digest in memory.
final class Authenticator: Sendable {
    private let store: any TokenStore
    private let presharedDigest: [UInt8]?
    private let logger: Logger
    /// When each token's last use was last written, to write it at most once a minute.
    private let lastRecorded = Mutex<[Int64: Int64]>([:])

    init(store: any TokenStore, presharedToken: String?, logger: Logger) {
        self.store = store
        self.presharedDigest = presharedToken.flatMap { $0.isEmpty ? nil : TokenSecret.digest(of: $0) }
        self.logger = logger
    }

    /// The authorize stage: nil when `request` may use `route`, else the
    /// refusal: 401 without a known token (in any `Credential` form), 403
    /// when its scope is short of the route's.
    func refusal(of request: Request, for route: Router.Route) throws -> APIError? {
        guard let required = route.scope else { return nil }
        guard let granted = try scope(for: Credential.token(in: request)) else { return .unauthorized }
        guard granted.allows(required) else {
            return .forbidden("this token has \(granted.rawValue) scope; \(route.method) \(route.pattern) needs \(required.rawValue)")
        }
        return nil
    }

    func scope(for token: String?) throws -> Scope? {
        guard let token else { return nil }
        let digest = TokenSecret.digest(of: token)
        if let presharedDigest, digest == presharedDigest { return .admin }
        guard let (id, scope) = try store.token(digest: digest) else { return nil }
        recordUse(of: id)
        return scope
    }

    /// The token of `Bearer <token>`; the scheme is case-insensitive.
    static func bearerToken(in header: String?) -> String? {
        header.flatMap { Credential.value(of: "bearer ", in: $0) }
    }

    private func recordUse(of id: Int64) {
        let now = Timestamp.now()
        let due = lastRecorded.withLock { recorded in
            guard now.milliseconds - (recorded[id] ?? .min / 2) >= 60_000 else { return false }
            recorded[id] = now.milliseconds
            return true
        }
        guard due else { return }
        // Joins the next group commit; this worker does not wait for it.
        let logger = logger
        store.recordTokenUse(id: id, at: now) { error in
            logger.warning("could not record token use: \(error)")
        }
    }
}
