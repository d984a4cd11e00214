import Foundation
import SenseiModels
import SenseiTestSupport

/// A seeded generator of hostile HTTP requests for `FuzzTests`: requests to
/// every route, bent every way a device or an attacker might — odd ids and
/// codes, %-escapes (%00, invalid UTF-8), long paths, odd query values,
/// wrong tokens, lying Content-Lengths, chunked bodies, and JSON bodies with
/// extreme numbers, odd timestamps, deep nesting, duplicate keys, odd batch
/// shapes and byte-level mutations. One seed gives the same requests, so a
/// failure replays (timestamps near "now" aside).
struct RequestFuzzer {
    struct Case: CustomStringConvertible {
        enum Auth { case valid, invalid, unsure }

        var method = ""
        var path: [UInt8] = []
        var bytes: [UInt8] = []
        /// Valid HTTP/1.1 framing: an answer is owed, and a 4xx must be JSON `{"error": …}`.
        var wellFormed = true
        /// False when the server may rightly close without an answer we can read: a body
        /// shorter than announced (it waits for the rest), or bytes past the request
        /// (closing with them unread resets the connection, which can drop the answer).
        var answerOwed = true
        var auth = Auth.valid

        var description: String {
            let shown = bytes.prefix(700).map { byte -> String in
                switch byte {
                case 0x0A: "\\n"
                case 0x0D: "\\r"
                case 0x20..<0x7F: String(UnicodeScalar(byte))
                default: "\\x" + String(byte, radix: 16, uppercase: true)
                }
            }.joined()
            return shown + (bytes.count > 700 ? "… (\(bytes.count) bytes)" : "")
        }
    }

    var random: SplitMix64
    private let token: String
    let now = Timestamp.now().milliseconds

    init(seed: UInt64, token: String) {
        random = SplitMix64(seed: seed)
        self.token = token
    }

    // MARK: Requests

    /// `keepAlive`: without `Connection: close`, to send several on one connection.
    mutating func next(keepAlive: Bool = false) -> Case {
        var request = Case()
        request.method = switch int(40) {
        case 0..<16: "GET"
        case 16..<34: "POST"
        case 34, 35: "PATCH"
        case 36: "HEAD"
        case 37: chance(50) ? "DELETE" : "PUT"
        default: pick(["OPTIONS", "get", "BREW", "TRACE"])
        }
        request.path = path(for: request.method)
        let target = request.path + (chance(40) ? bytes("?") + query() : [])
        var head = bytes(request.method, " ", target, " HTTP/1.1\r\nHost: 127.0.0.1\r\n", keepAlive ? "" : "Connection: close\r\n")
        head += authorization(&request.auth)
        if chance(75) { head += bytes("Content-Type: ", pick(Self.contentTypes), "\r\n") }
        let hasBody = ["POST", "PATCH", "PUT"].contains(request.method) ? chance(95) : chance(5)
        request.bytes = hasBody ? frame(body(for: request.path), after: head, &request) : head + bytes("\r\n")
        if chance(6) { mangle(&request) }
        return request
    }

    private mutating func path(for method: String) -> [UInt8] {
        let route = switch method {
        case "POST": pick([3, 3, 3, 3, 3, 5, 5, 1, int(9)])
        case "PATCH", "DELETE": pick([2, 2, 2, int(9)])
        default: int(9)
        }
        return switch route {
        case 0: bytes("/health")
        case 1: bytes("/sensors")
        case 2: bytes("/sensors/", sensor())
        case 3: bytes("/sensors/", sensor(), "/data")
        case 4: bytes("/sensors/", sensor(), "/data.csv")
        case 5: bytes("/sensor_data")
        case 6: bytes("/sensor_data/", sensor())
        case 7: bytes(pick(["/", "//sensors", "/sensors/", "/sensors//data", "/sensors/s0/data/x", "/../etc/passwd",
                            "/sensors/%2e%2e/data", "/sensors/s0%2Fdata", "/health?", "/SENSORS", "/sensors/s0/DATA"]))
        default: bytes(pick(["/sensors/", "/sensor_data/", "/"]), sensor(), chance(50) ? "/data" : "")
        }
    }

    /// Codes the cases keep coming back to, so readings pile up on a few sensors.
    static let codes = ["s0", "s1", "s2", "temp_ext", "hum-bath"]

    private mutating func sensor() -> [UInt8] {
        switch int(20) {
        case 0..<12: return bytes(pick(Self.codes))
        case 12: return bytes(pick(["1", "2", "3", "0", "007", "999", "99999999999999999999", "18446744073709551616"]))
        case 13: return bytes(pick(Self.codes).utf8.map { "%" + String($0, radix: 16, uppercase: true) }.joined())
        case 14: return bytes(pick(["a%00b", "%00", "s0%00", "%FF%FE", "%C3%A9", "%C3%28", "%zz", "%", "%2", "%20", "+"]))
        case 15: return pick([[0xFF], [0xC3, 0x28], [0xE2, 0x82], bytes("ü"), bytes("s", [0xC0, 0xAF])])
        case 16: return bytes(String(repeating: "x", count: pick([49, 50, 51, 200])))
        case 17: return bytes(String(repeating: pick(["a", "%41", "7"]), count: int(1000) + 300))
        case 18: return bytes(pick(["-1", "+1", "1e3", "0x10", "s0.csv", "data", "..", "."]))
        default: return bytes(String((0...int(8)).map { _ in pick(Array("abcXYZ019_-")) }))
        }
    }

    private mutating func query() -> [UInt8] {
        let parameters = (0...int(3)).map { _ -> String in
            let name = pick(["limit", "after", "before", "buckets", "order", "page", "per", "x", "LIMIT", "%6Cimit"])
            let value = switch name {
            case "after", "before": escaped(time())
            case "order": pick(["asc", "desc", "ASC", "Desc", "", "sideways", "%00", "asc%00"])
            default: pick(["1", "2", "100", "2000", "2001", "10000", "10001", "0", "-1", "abc", "", "1.5", "1e3",
                           "%205", "99999999999999999999", "%35", "1000000", "1000001", "%FF"])
            }
            return chance(8) ? name : "\(name)=\(value)"
        }
        return bytes(parameters.joined(separator: chance(10) ? "&&" : "&"))
    }

    private mutating func authorization(_ auth: inout Case.Auth) -> [UInt8] {
        switch int(100) {
        case 0..<84: return bytes("Authorization: Bearer \(token)\r\n")
        case 84..<88: auth = .invalid; return []
        case 88..<92:
            auth = .unsure  // the scheme is case-insensitive, spaces are trimmed, InfluxDB's `Token` works too
            return bytes("Authorization: ", pick(["bearer ", "BEARER ", "Bearer  ", " Bearer ", "Token ", "token "]),
                         token, "\r\n")
        default:
            auth = .invalid
            return bytes("Authorization: ", pick(["Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Bearer \(token)x",
                                                  "Bearer \(token.dropLast())", "Token \(token)x",
                                                  "Bearer " + String(repeating: "t", count: 4000),
                                                  "Bearer \(token) extra"]), "\r\n")
        }
    }

    static let contentTypes = ["application/json", "application/json", "application/json; charset=utf-8",
                               "text/plain", "application/x-www-form-urlencoded", "application/vnd.api+json",
                               "", "garbage", "application/octet-stream", "text/csv"]

    /// The head's end and the body, framed mostly right, sometimes not.
    private mutating func frame(_ body: [UInt8], after head: [UInt8], _ request: inout Case) -> [UInt8] {
        switch int(24) {
        case 0..<17:
            return head + bytes("Content-Length: \(body.count)\r\n\r\n", body)
        case 17, 18:
            var chunked = head + bytes("Transfer-Encoding: chunked\r\n\r\n")
            var rest = body[...]
            while !rest.isEmpty {
                let chunk = rest.prefix(1 + int(300))
                rest = rest.dropFirst(chunk.count)
                chunked += bytes(String(chunk.count, radix: 16), chance(10) ? ";ext=1" : "", "\r\n", Array(chunk), "\r\n")
            }
            return chunked + bytes("0\r\n\r\n")
        case 19:
            request.answerOwed = false
            return head + bytes("\r\n", body)  // no length: the body is a stray second request
        case 20:
            request.answerOwed = false
            return head + bytes("Content-Length: \(body.count + 1 + int(100))\r\n\r\n", body)
        case 21:
            request.answerOwed = false
            return head + bytes("Content-Length: \(int(body.count + 1))\r\n\r\n", body)
        default:
            request.wellFormed = false
            request.answerOwed = false
            return head + bytes(pick(["Content-Length: abc\r\n", "Content-Length: -5\r\n", "Content-Length: 1e3\r\n",
                                      "Content-Length: 3\r\nContent-Length: 4\r\n",
                                      "Content-Length: \(body.count)\r\nTransfer-Encoding: chunked\r\n",
                                      "Transfer-Encoding: chunked\r\n\r\nzz\r\n",
                                      "Transfer-Encoding: chunked\r\n\r\n5\r\n"]), "\r\n", body)
        }
    }

    /// Bytes flipped in the head, bare line feeds, headers without colons or
    /// too long for a connection's memory, a bad version: not HTTP any more.
    private mutating func mangle(_ request: inout Case) {
        request.wellFormed = false
        request.answerOwed = false
        let headEnd = request.bytes.firstRange(of: bytes("\r\n\r\n"))?.lowerBound ?? request.bytes.count
        switch int(6) {
        case 0, 1:
            for _ in 0...int(3) where headEnd > 0 { request.bytes[int(headEnd)] = UInt8(truncatingIfNeeded: random.next()) }
        case 2:
            request.bytes = request.bytes.split(separator: 0x0D, omittingEmptySubsequences: false).joined().map { $0 }
        case 3:
            request.bytes.insert(contentsOf: bytes(pick(["X-No-Colon\r\n", "X-Nul: a\0b\r\n", " folded\r\n",
                                                         "X-Big: " + String(repeating: "b", count: 40_000) + "\r\n"])),
                                 at: request.bytes.firstRange(of: bytes("\r\n"))!.upperBound)
        case 4:
            request.bytes.replaceSubrange(request.bytes.firstRange(of: bytes("HTTP/1.1"))!, with: bytes(
                pick(["HTTP/1.0", "HTTP/2.0", "HTTP/9.9", "http/1.1", "HTTP/1.1 x", "HTCPCP/1.0", ""])))
        default:
            request.bytes = Array(request.bytes.prefix(int(headEnd + 1)))
        }
    }

    // MARK: Helpers

    mutating func int(_ bound: Int) -> Int { Int(random.next() % UInt64(max(1, bound))) }
    mutating func chance(_ percent: Int) -> Bool { int(100) < percent }
    mutating func pick<T>(_ choices: [T]) -> T { choices[int(choices.count)] }

    mutating func shuffled(_ items: [String]) -> [String] {
        var items = items
        for index in items.indices.reversed() { items.swapAt(index, int(index + 1)) }
        return items
    }

    func jsonString(_ text: String) -> String {
        var writer = JSONWriter()
        writer.string(text)
        return writer.string
    }

    /// Query-safe: everything but unreserved characters and ':' percent-encoded.
    func escaped(_ text: String) -> String {
        text.utf8.map { byte in
            let safe = byte < 0x80 && (Character(UnicodeScalar(byte)).isLetter || Character(UnicodeScalar(byte)).isNumber
                                        || "-._~:".utf8.contains(byte))
            return safe ? String(UnicodeScalar(byte)) : "%" + String(byte, radix: 16, uppercase: true)
        }.joined()
    }
}
