import SenseiModels

/// API tokens, stored as digests.
public protocol TokenStore: AnyObject, Sendable {
    /// Returns the secret, which only the caller ever sees.
    func createToken(name: String, scope: Scope, at now: Timestamp) throws -> String
    func tokens() throws -> [TokenInfo]
    func revokeToken(name: String) throws -> Bool
    /// The token with this digest; a revocation by another process applies at once.
    func token(digest: [UInt8]) throws -> (id: Int64, scope: Scope)?
    /// Records a use without waiting; `failed` runs if it does not commit.
    func recordTokenUse(id: Int64, at now: Timestamp, failed: @escaping @Sendable (any Error) -> Void)
}

extension SenseiStore: TokenStore {}
