import Foundation
import SenseiModels
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `GET /stream` over a plain socket, for `http://` servers: a thread blocked
/// in `recv`, which costs nothing while the stream is quiet. URLSession on
/// Linux (libcurl under a dispatch loop) spun at 30-40 % of a core holding
/// an idle stream open (strace: some 4,000 epoll_wait, poll and read calls a
/// second), which a dashboard left open all day cannot afford; it is kept for
/// `https://`, which this reader does not speak.
///
/// HTTP/1.0, so the body is the events as sent, no chunk framing, and ends
/// with the connection.
final class EventStreamSocket: Sendable {
    private let descriptor = Atomic<Int32>(-1)
    private let cancelled = Atomic<Bool>(false)

    /// Reads the stream at `host`:`port` `target` on a thread of its own into `continuation`.
    static func start(host: String, port: Int, target: String, token: String, silence: TimeInterval,
                      answer: TimeInterval, continuation: AsyncThrowingStream<LiveEvent, any Error>.Continuation) {
        let reader = EventStreamSocket()
        continuation.onTermination = { _ in reader.cancel() }
        let thread = Thread {
            do {
                try reader.run(host: host, port: port, target: target, token: token, silence: silence,
                               answer: answer, continuation: continuation)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        thread.name = "sensei-live"
        thread.start()
    }

    private func cancel() {
        cancelled.store(true, ordering: .relaxed)
        let fd = descriptor.load(ordering: .relaxed)
        // Wakes the blocked recv; the reader closes the socket.
        if fd >= 0 { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private func run(host: String, port: Int, target: String, token: String, silence: TimeInterval,
                     answer: TimeInterval, continuation: AsyncThrowingStream<LiveEvent, any Error>.Continuation) throws {
        let fd = try Self.connect(host: host, port: port, timeout: 10)
        descriptor.store(fd, ordering: .relaxed)
        defer {
            descriptor.store(-1, ordering: .relaxed)
            close(fd)
        }
        if cancelled.load(ordering: .relaxed) { return }
        // The answer's head within `answer`, then events (heartbeats
        // included) at least every `silence`. A server answers a stream at
        // once; a connection that gets no answer at all (one taken into the
        // backlog of a server that was stopping) is given up in seconds and
        // reopened, not after the whole silence.
        Self.setReadTimeout(min(silence, answer), on: fd)
        let request = "GET \(target) HTTP/1.0\r\nHost: \(host):\(port)\r\nAuthorization: Bearer \(token)\r\n"
            + "Accept: text/event-stream\r\n\r\n"
        guard Self.sendAll(Array(request.utf8), on: fd) else { throw SyncFailure.unreachable("connection lost") }

        var buffer: [UInt8] = []
        var parser = EventParser()
        var status: Int?
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count == 0 || cancelled.load(ordering: .relaxed) { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw SyncFailure.unreachable(errno == EAGAIN || errno == EWOULDBLOCK ? "timed out" : "connection lost")
            }
            buffer.append(contentsOf: chunk[0..<count])
            if status == nil {
                guard let end = buffer.firstRange(of: Array("\r\n\r\n".utf8)) else {
                    if buffer.count > 64 * 1024 { throw SyncFailure.invalidResponse("malformed HTTP answer") }
                    continue
                }
                let line = String(decoding: buffer[..<end.lowerBound], as: UTF8.self).prefix { $0 != "\r" }
                let parts = line.split(separator: " ")
                guard parts.count >= 2, let code = Int(parts[1]) else {
                    throw SyncFailure.invalidResponse("malformed HTTP answer")
                }
                status = code
                Self.setReadTimeout(silence, on: fd)
                buffer.removeFirst(end.upperBound)
                if code == 200 { continuation.yield(.opened) }
            }
            if status == 200 {
                for event in parser.take(&buffer) { continuation.yield(event) }
            } else if buffer.count > 64 * 1024 {
                break
            }
        }
        if let status, status != 200 { throw APIClient.failure(status: status, body: buffer) }
        if status == nil && !cancelled.load(ordering: .relaxed) { throw SyncFailure.unreachable("connection lost") }
    }

    private static func setReadTimeout(_ seconds: TimeInterval, on fd: Int32) {
        var limit = timeval(tv_sec: Int(max(1, seconds)), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    /// A connected TCP socket, or `.unreachable` saying why not.
    private static func connect(host: String, port: Int, timeout: Int) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else {
            throw SyncFailure.unreachable("host not found")
        }
        defer { freeaddrinfo(found) }
        var refused = false
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            candidate = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            guard fd >= 0 else { continue }
            // Also bounds connect() (Linux applies the send timeout to it).
            var limit = timeval(tv_sec: timeout, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            if Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return fd }
            refused = refused || errno == ECONNREFUSED
            close(fd)
        }
        throw SyncFailure.unreachable(refused ? "connection refused" : "timed out")
    }

    private static func sendAll(_ bytes: [UInt8], on fd: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }
}

/// Cuts server-sent events out of received bytes: `event:` and `data:` lines
/// up to a blank line. `reading` events (also those without a name, as
/// before alerts came on the stream) and `alert` events are handed on;
/// comments, heartbeats and events of names this client does not know yet
/// are skipped.
struct EventParser {
    /// Every complete event in `buffer` (removed from it).
    mutating func take(_ buffer: inout [UInt8]) -> [LiveEvent] {
        var events: [LiveEvent] = []
        while let end = Self.eventEnd(in: buffer) {
            let block = Array(buffer[..<end.lowerBound])
            buffer.removeFirst(end.upperBound)
            if let event = Self.event(in: block) { events.append(event) }
        }
        return events
    }

    /// The event one block of lines carries, if any.
    static func event(in block: [UInt8]) -> LiveEvent? {
        var name = "reading"
        var data: [UInt8]?
        for line in block.split(separator: UInt8(ascii: "\n")) {
            let line = line.last == UInt8(ascii: "\r") ? line.dropLast() : line
            if let value = field("event", of: line) {
                name = String(decoding: value, as: UTF8.self)
            } else if let value = field("data", of: line) {
                // Several data lines are one payload joined by newlines (the server sends one).
                if data == nil { data = Array(value) } else { data! += [UInt8(ascii: "\n")] + value }
            }
        }
        guard let data, let json = try? JSONParser.parse(data) else { return nil }
        switch name {
        case "reading": return (try? LiveReading(json: json)).map(LiveEvent.reading)
        case "alert": return (try? AlertChange(json: json)).map(LiveEvent.alert)
        default: return nil
        }
    }

    /// The value of a `name: value` line (one space after the colon dropped, as the spec says).
    private static func field(_ name: String, of line: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        let prefix = Array((name + ":").utf8)
        guard line.starts(with: prefix) else { return nil }
        let value = line.dropFirst(prefix.count)
        return value.first == UInt8(ascii: " ") ? value.dropFirst() : value
    }

    /// The first blank line (`\n\n`, or `\r\n\r\n`) ending an event.
    private static func eventEnd(in bytes: [UInt8]) -> Range<Int>? {
        let lf = bytes.firstRange(of: [10, 10])
        let crlf = bytes.firstRange(of: [13, 10, 13, 10])
        switch (lf, crlf) {
        case let (a?, b?): return a.lowerBound < b.lowerBound ? a : b
        case let (a, b): return a ?? b
        }
    }
}
