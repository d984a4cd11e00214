import Logging
import SenseiModels
import Synchronization

/// Turns an `Authorization` header into the scope it grants, or nil.
///
/// Tokens are found by their SHA-256 digest, so no comparison runs over the
/// secret itself. The pre-shared `SENSEI_TOKEN` is an admin token kept only
/// as a digest in memory.
final class Authenticator: Sendable {
    private let store: SenseiStore
    private let presharedDigest: [UInt8]?
    private let logger: Logger
    /// When each token's last use was last written, to write it at most once a minute.
    private let lastRecorded = Mutex<[Int64: Int64]>([:])

    init(store: SenseiStore, presharedToken: String?, logger: Logger) {
        self.store = store
        self.presharedDigest = presharedToken.flatMap { $0.isEmpty ? nil : TokenSecret.digest(of: $0) }
        self.logger = logger
    }

    func scope(for authorization: String?) throws -> Scope? {
        guard let token = Self.bearerToken(in: authorization) else { return nil }
        let digest = TokenSecret.digest(of: token)
        if let presharedDigest, digest == presharedDigest { return .admin }
        guard let (id, scope) = try store.token(digest: digest) else { return nil }
        recordUse(of: id)
        return scope
    }

    /// The token of `Bearer <token>`; the scheme is case-insensitive.
    static func bearerToken(in header: String?) -> String? {
        guard let header else { return nil }
        let trimmed = header.trimmingSpaces()
        // Compared as bytes, case-insensitively: no lowercased copy per request.
        let scheme = "bearer ".utf8
        guard trimmed.utf8.count > scheme.count,
              zip(trimmed.utf8, scheme).allSatisfy({ $0 == $1 || $0 | 0x20 == $1 && $1 != UInt8(ascii: " ") }) else { return nil }
        let token = trimmed.utf8.dropFirst(scheme.count)
        let value = Substring(token).trimmingSpaces()
        return value.isEmpty ? nil : String(value)
    }

    private func recordUse(of id: Int64) {
        let now = Timestamp.now()
        let due = lastRecorded.withLock { recorded in
            guard now.milliseconds - (recorded[id] ?? .min / 2) >= 60_000 else { return false }
            recorded[id] = now.milliseconds
            return true
        }
        guard due else { return }
        do {
            try store.recordTokenUse(id: id, at: now)
        } catch {
            logger.warning("could not record token use: \(error)")
        }
    }
}

extension Substring {
    func trimmingSpaces() -> Substring {
        var slice = self
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return slice
    }
}

extension String {
    func trimmingSpaces() -> Substring { self[...].trimmingSpaces() }
}
