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
    /// scheme is matched case-insensitively, spaces and tabs around are
    /// dropped. Read on the header's UTF-8 bytes: this runs on every request,
    /// and trimming by `Character` cost more than hashing the token.
    static func value(of scheme: StaticString, in header: String) -> String? {
        var header = header
        return header.withUTF8 { bytes -> String? in
            func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
            var start = 0, end = bytes.count
            while start < end, isBlank(bytes[start]) { start += 1 }
            while end > start, isBlank(bytes[end - 1]) { end -= 1 }
            let schemeEnd = start + scheme.utf8CodeUnitCount
            // Letters in either case; the trailing space exactly.
            guard end > schemeEnd, sameIgnoringCase(bytes[start..<schemeEnd], scheme) else { return nil }
            start = schemeEnd
            while start < end, isBlank(bytes[start]) { start += 1 }
            return start < end ? String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self) : nil
        }
    }
}
