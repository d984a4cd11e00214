import Foundation
import GRDB
import SenseiModels

/// A token as `token list` shows it; the secret itself is never stored.
public struct TokenInfo: Sendable, Equatable {
    public var id: Int64
    public var name: String
    public var scope: Scope
    public var createdAt: Timestamp
    public var lastUsedAt: Timestamp?
}

extension TokenInfo: FetchableRecord {
    static let columns = "id, name, scope, created_at, last_used_at"

    public init(row: Row) {
        self.init(id: row["id"], name: row["name"], scope: Scope(rawValue: row["scope"]) ?? .read,
                  createdAt: Timestamp(milliseconds: row["created_at"]),
                  lastUsedAt: (row["last_used_at"] as Int64?).map(Timestamp.init(milliseconds:)))
    }
}

extension SenseiStore {
    /// Creates a token and returns its secret, which only the caller ever sees.
    public func createToken(name: String, scope: Scope, at now: Timestamp = .now()) throws -> String {
        let secret = TokenSecret.generate()
        try groupCommit.write { db in
            if try Int.fetchOne(db, sql: "SELECT 1 FROM tokens WHERE name = ?", arguments: [name]) != nil {
                throw StoreError.tokenNameTaken(name)
            }
            try db.execute(
                sql: "INSERT INTO tokens (name, digest, scope, created_at) VALUES (?, ?, ?, ?)",
                arguments: [name, Data(TokenSecret.digest(of: secret)), scope.rawValue, now.milliseconds])
        }
        return secret
    }

    public func tokens() throws -> [TokenInfo] {
        try pool.read { db in
            try TokenInfo.fetchAll(db, sql: "SELECT \(TokenInfo.columns) FROM tokens ORDER BY name")
        }
    }

    /// Deletes a token by name; false if there was none.
    public func revokeToken(name: String) throws -> Bool {
        try groupCommit.write { db in
            try db.execute(sql: "DELETE FROM tokens WHERE name = ?", arguments: [name])
            return db.changesCount > 0
        }
    }

    /// The token with this digest (see `TokenLookup`: revocations by another
    /// process apply at once).
    public func token(digest: [UInt8]) throws -> (id: Int64, scope: Scope)? {
        try tokenLookup.token(digest: digest)
    }

    /// Records a token's last use in the next group commit, without waiting
    /// for it: the request that used the token goes on at once. `failed` runs
    /// on the writer thread if the write does not commit.
    public func recordTokenUse(id: Int64, at now: Timestamp, failed: @escaping @Sendable (any Error) -> Void) {
        groupCommit.submit({ db in
            try db.execute(sql: "UPDATE tokens SET last_used_at = ? WHERE id = ?", arguments: [now.milliseconds, id])
            return 0
        }) { result in
            if case .failure(let error) = result { failed(error) }
        }
    }
}
