import Foundation
import SenseiPostgres
import SenseiModels
import Synchronization

/// API tokens (`TokenStore`), as SHA-256 digests.
extension PostgresStore: TokenStore {
    public func createToken(name: String, scope: Scope, at now: Timestamp = .now()) throws -> String {
        let secret = TokenSecret.generate()
        let digest = TokenSecret.digest(of: secret)
        try write { session in
            let inserted = try session.execute("""
                INSERT INTO tokens (name, digest, scope, created_at)
                VALUES (\(name), \(digest), \(scope.rawValue), \(now.milliseconds))
                ON CONFLICT (name) DO NOTHING
                """)
            if inserted == 0 { throw StoreError.tokenNameTaken(name) }
        }
        return secret
    }

    public func tokens() throws -> [TokenInfo] {
        try read { session in
            try session.rows("SELECT id, name, scope, created_at, last_used_at FROM tokens ORDER BY name").map { row in
                let columns = row
                return TokenInfo(
                    id: try columns["id"].decode(Int64.self), name: try columns["name"].decode(String.self),
                    scope: Scope(rawValue: try columns["scope"].decode(String.self)) ?? .read,
                    createdAt: Timestamp(milliseconds: try columns["created_at"].decode(Int64.self)),
                    lastUsedAt: try columns["last_used_at"].decode(Int64?.self).map(Timestamp.init(milliseconds:)))
            }
        }
    }

    public func revokeToken(name: String) throws -> Bool {
        let deleted = try write { try $0.execute("DELETE FROM tokens WHERE name = \(name)") }
        tokenCache.clear()
        return deleted > 0
    }

    /// The token with this digest, from a cache entry at most
    /// `TokenCache.maximumAge` old: a token revoked through another node
    /// stops working within that.
    public func token(digest: [UInt8]) throws -> (id: Int64, scope: Scope)? {
        if let cached = tokenCache.token(digest: digest) { return cached }
        let found = try read { session -> (id: Int64, scope: Scope)? in
            guard let row = try session.row("SELECT id, scope FROM tokens WHERE digest = \(digest)") else { return nil }
            let (id, scope) = try row.decode((Int64, String).self)
            return Scope(rawValue: scope).map { (id, $0) }
        }
        if let found { tokenCache.remember(found, for: digest) }
        return found
    }

    /// Records a token's last use without holding the request up.
    public func recordTokenUse(id: Int64, at now: Timestamp, failed: @escaping @Sendable (any Error) -> Void) {
        guard tokenCache.shouldRecordUse(of: id, at: now) else { return }
        // Off the HTTP worker, and off the cooperative pool (it blocks).
        DispatchQueue.global(qos: .utility).async { [self] in
            do {
                _ = try read { try $0.execute("UPDATE tokens SET last_used_at = \(now.milliseconds) WHERE id = \(id)") }
            } catch {
                failed(error)
            }
        }
    }
}

/// Known tokens, each kept for `maximumAge` (several nodes share the table,
/// and a revocation through one must reach the others within 2 s), and when
/// each token's use was last recorded (once a second is enough for
/// `token list`'s "last used").
final class TokenCache: Sendable {
    static let maximumAge: Int64 = 1_000
    private struct Entry {
        let id: Int64
        let scope: Scope
        let at: Int64
    }

    private let entries = Mutex<[[UInt8]: Entry]>([:])
    private let recorded = Mutex<[Int64: Int64]>([:])

    func token(digest: [UInt8]) -> (id: Int64, scope: Scope)? {
        let now = Timestamp.now().milliseconds
        return entries.withLock { entries in
            guard let entry = entries[digest], now - entry.at < Self.maximumAge else { return nil }
            return (entry.id, entry.scope)
        }
    }

    func remember(_ token: (id: Int64, scope: Scope), for digest: [UInt8]) {
        let now = Timestamp.now().milliseconds
        entries.withLock { entries in
            // Bounded by the tokens that exist: only found ones are kept.
            if entries.count > 10_000 { entries.removeAll() }
            entries[digest] = Entry(id: token.id, scope: token.scope, at: now)
        }
    }

    func clear() {
        entries.withLock { $0.removeAll() }
    }

    func shouldRecordUse(of id: Int64, at now: Timestamp) -> Bool {
        recorded.withLock { recorded in
            if let last = recorded[id], now.milliseconds - last < 1_000 { return false }
            recorded[id] = now.milliseconds
            return true
        }
    }
}
