import Foundation
import GRDB
import SenseiModels
import Synchronization

/// Finds tokens by digest on every request without a database read each time.
///
/// Known tokens are remembered for as long as `PRAGMA data_version` on this
/// lookup's own connection stays the same: SQLite changes it whenever any
/// other connection commits, this server's writer or `sensei-server token
/// revoke` in another process alike. So a revoked token fails at once, and a
/// dashboard polling a quiet server is answered from memory. Unknown digests
/// are never remembered, so random tokens cannot grow the cache.
final class TokenLookup: Sendable {
    private let connection: DatabaseQueue
    private let cache = Mutex<(version: Int64, tokens: [[UInt8]: (id: Int64, scope: Scope)])>((-1, [:]))

    init(path: String) throws {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        configuration.label = "sensei-tokens"
        connection = try DatabaseQueue(path: path, configuration: configuration)
    }

    func token(digest: [UInt8]) throws -> (id: Int64, scope: Scope)? {
        try connection.inDatabase { db in
            let version = try Int64.fetchOne(db.cachedStatement(sql: "PRAGMA data_version")) ?? 0
            let cached = cache.withLock { cache -> (id: Int64, scope: Scope)? in
                if cache.version != version { cache = (version, [:]) }
                return cache.tokens[digest]
            }
            if let cached { return cached }
            let statement = try db.cachedStatement(sql: "SELECT id, scope FROM tokens WHERE digest = ?")
            guard let row = try Row.fetchOne(statement, arguments: [Data(digest)]) else { return nil }
            let token: (id: Int64, scope: Scope) = (row["id"], Scope(rawValue: row["scope"]) ?? .read)
            cache.withLock { cache in
                if cache.version == version { cache.tokens[digest] = token }
            }
            return token
        }
    }

    func close() throws {
        try connection.close()
    }
}
