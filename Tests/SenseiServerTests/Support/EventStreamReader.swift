import Foundation
import SenseiModels

#if canImport(Glibc)
import Glibc
#endif

/// A server-sent-events client over a raw loopback socket: HTTP/1.0, so the
/// body is the events as they are (no chunk framing) and its end is the
/// connection's. Reads with short socket timeouts against a deadline.
/// Unchecked: one test reads it at a time; the async reads hand it to a thread and wait.
final class EventStreamReader: @unchecked Sendable {
    let status: Int
    let headers: [String: String]
    private let socket: Int32
    private var buffer: [UInt8]
    /// The connection ended (the server finished or cut the stream).
    private(set) var ended = false
    /// Comment lines seen (": heartbeat").
    private(set) var comments: [String] = []

    /// Opens `path` and reads the answer's head (up to 10 s).
    init(client: TestHTTPClient, path: String) throws {
        socket = try client.connect()
        var timeout = timeval(tv_sec: 0, tv_usec: 50_000)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var head = "GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n"
        if let token = client.token { head += "Authorization: Bearer \(token)\r\n" }
        try client.send(Array((head + "\r\n").utf8), on: socket)
        buffer = []
        let deadline = Date().addingTimeInterval(10)
        var end: Range<Int>?
        while end == nil {
            guard Date() < deadline, Self.receive(socket, into: &buffer) != 0 else {
                close(socket)
                throw HTTPClientError(description: "no answer head: \(String(decoding: buffer, as: UTF8.self))")
            }
            end = buffer.firstRange(of: Array("\r\n\r\n".utf8))
        }
        let response = try TestHTTPClient.parse(Array(buffer[..<end!.upperBound]))
        status = response.status
        headers = response.headers
        buffer.removeFirst(end!.upperBound)
    }

    deinit { close(socket) }

    /// The next event's `data` as JSON, waiting up to `seconds`; nil if none
    /// came, or the stream ended.
    func next(within seconds: Double = 10) throws -> JSONValue? {
        try nextEvent(within: seconds)?.data
    }

    /// `next`, with the event's name (its `event:` line; `message` without one).
    func nextEvent(within seconds: Double = 10) throws -> (name: String, data: JSONValue)? {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let event = takeEvent() {
                if let data = event.first(where: { $0.hasPrefix("data: ") }) {
                    let name = event.first(where: { $0.hasPrefix("event: ") }).map { String($0.dropFirst(7)) }
                    return (name ?? "message", try JSONParser.parse(Array(data.dropFirst(6).utf8)))
                }
                comments.append(contentsOf: event.filter { $0.hasPrefix(":") })
                continue
            }
            if ended || Date() >= deadline { return nil }
            if Self.receive(socket, into: &buffer) == 0 { ended = true }
        }
    }

    /// Reads until the server closes the connection (up to `seconds`); true if it did.
    func waitForEnd(within seconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !ended && Date() < deadline {
            if Self.receive(socket, into: &buffer) == 0 { ended = true }
        }
        return ended
    }

    /// Every complete `data:` event waiting now, without reading more.
    func takeAll() throws -> [JSONValue] {
        var events: [JSONValue] = []
        while let event = takeEvent() {
            if let data = event.first(where: { $0.hasPrefix("data: ") }) {
                events.append(try JSONParser.parse(Array(data.dropFirst(6).utf8)))
            }
        }
        return events
    }

    /// Lines of the first complete event (up to a blank line), removed from the buffer.
    private func takeEvent() -> [String]? {
        guard let end = buffer.firstRange(of: Array("\n\n".utf8)) else { return nil }
        let text = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
        buffer.removeFirst(end.upperBound)
        return text.split(separator: "\n").map(String.init)
    }

    /// One recv: bytes appended; 0 at the end of the stream, -1 on a timeout.
    private static func receive(_ socket: Int32, into buffer: inout [UInt8]) -> Int {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = recv(socket, &chunk, chunk.count, 0)
        if count > 0 {
            buffer.append(contentsOf: chunk[0..<count])
            return count
        }
        if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) { return 0 }
        return -1
    }
}
