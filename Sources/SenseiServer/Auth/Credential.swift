import Foundation

/// Where a request carries its token. Every form is read here and nowhere
/// else, so a new one is a case in this file.
///
/// - `Authorization: Bearer T`: Sensei's own.
/// - `Authorization: Token T`: InfluxDB 2.x clients (Home Assistant, Node-RED,
///   the InfluxDB Arduino client).
/// - `Authorization: Basic base64(user:T)`: InfluxDB 1.x clients and Telegraf's
///   `username`/`password`; the user name is ignored.
/// - `p=T` in the query string: InfluxDB 1.x's `u=…&p=…`, when there is no
///   `Authorization` header.
///
/// Every route takes every form: one rule to explain, and a token is a
/// token whichever way it comes. The token itself is never logged (the
/// request log has the path without its query) and never echoed in an error.
enum Credential {
    static func token(in request: Request) -> String? {
        guard let header = request.authorization else {
            guard let password = request.query["p"], !password.isEmpty else { return nil }
            return password
        }
        if let token = value(of: "bearer ", in: header) ?? value(of: "token ", in: header) { return token }
        guard let encoded = value(of: "basic ", in: header),
              let decoded = Data(base64Encoded: encoded).map({ String(decoding: $0, as: UTF8.self) }),
              let colon = decoded.firstIndex(of: ":") else { return nil }
        let password = decoded[decoded.index(after: colon)...]
        return password.isEmpty ? nil : String(password)
    }

    /// The value after `scheme` (lowercase, with its trailing space); the
    /// scheme is matched case-insensitively on bytes: no lowercased copy per request.
    static func value(of scheme: String, in header: String) -> String? {
        let trimmed = header.trimmingSpaces()
        let scheme = scheme.utf8
        guard trimmed.utf8.count > scheme.count,
              zip(trimmed.utf8, scheme).allSatisfy({ $0 == $1 || $0 | 0x20 == $1 && $1 != UInt8(ascii: " ") }) else { return nil }
        let value = Substring(trimmed.utf8.dropFirst(scheme.count)).trimmingSpaces()
        return value.isEmpty ? nil : String(value)
    }
}
