import Foundation
import SenseiModels

#if canImport(Glibc)
import Glibc
#endif

/// A real HTTP receiver on a loopback port, standing in for Home Assistant
/// or ntfy: it records every request and answers with the statuses it is
/// told (then 200), optionally after a delay; it can go down and come back
/// up on the same port. One connection at a time, `Connection: close`.
final class WebhookReceiver: @unchecked Sendable {
    struct Received {
        var method: String
        var path: String
        /// Names lowercased.
        var headers: [String: String]
        var body: String
        var status: Int

        var json: JSONValue? { try? JSONParser.parse(body) }
    }

    private let lock = NSLock()
    private var received: [Received] = []
    private var statuses: [Int] = []
    private var delay: TimeInterval = 0
    private var listener: Int32 = -1
    private var holding = false
    private(set) var port: Int = 0

    /// While down: a socket bound to the port, not listening. It refuses
    /// connections as a closed port does, and keeps the port from being
    /// given to another test's receiver meanwhile (which would then get
    /// this one's notifications).
    private var reserved: Int32 = -1

    init() throws {
        try up()
    }

    deinit {
        stopListening()
        let placeholder = locked { reserved }
        if placeholder >= 0 { close(placeholder) }
    }

    /// `http://127.0.0.1:PORT` + `path`.
    func url(_ path: String = "/hook") -> String { "http://127.0.0.1:\(port)\(path)" }

    /// The next requests get these statuses, in order; later ones 200.
    func answer(_ statuses: [Int]) { locked { self.statuses = statuses } }

    /// Each answer waits this long first.
    func slow(_ seconds: TimeInterval) { locked { delay = seconds } }

    /// Every request so far.
    var requests: [Received] { locked { received } }

    /// The requests answered 2xx: what the receiver took.
    var accepted: [Received] { requests.filter { (200..<300).contains($0.status) } }

    /// Whether a request is being held (a slow answer under way).
    var isHolding: Bool { locked { holding } }

    /// Stops listening: connections are refused until `up`; the port stays this receiver's.
    func down() throws {
        guard stopListening() else { return }
        let placeholder = try boundSocket()
        locked { reserved = placeholder }
    }

    /// Listens (again, on the same port once it had one).
    func up() throws {
        let placeholder = locked { () -> Int32 in
            defer { reserved = -1 }
            return reserved
        }
        let socket = placeholder >= 0 ? placeholder : try boundSocket()
        guard listen(socket, 16) == 0 else {
            close(socket)
            throw HTTPClientError(description: "receiver cannot listen on port \(port): errno \(errno)")
        }
        locked { listener = socket }
        Thread { [self] in serve(socket) }.start()
    }

    /// Closes the listening socket; false if there was none.
    @discardableResult
    private func stopListening() -> Bool {
        let socket = locked { () -> Int32 in
            defer { listener = -1 }
            return listener
        }
        guard socket >= 0 else { return false }
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
        return true
    }

    /// A socket bound to `port` (a free one the first time, then `port` is it).
    private func boundSocket() throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var on: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            close(socket)
            throw HTTPClientError(description: "receiver cannot bind port \(port): errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        return socket
    }

    /// Waits (up to `seconds`) until `condition` holds of the requests;
    /// returns them. It sleeps between looks (`poll`) without holding a
    /// thread of the cooperative pool.
    @discardableResult
    func wait(seconds: Double = 20, until condition: ([Received]) -> Bool) async throws -> [Received] {
        if let met = try await poll(seconds: seconds, every: .milliseconds(10), { () async -> [Received]? in
            let now = requests
            return condition(now) ? now : nil
        }) { return met }
        throw HTTPClientError(description: "receiver: condition not met within \(seconds) s; got \(requests.map(\.body))")
    }

    private func serve(_ socket: Int32) {
        while true {
            let connection = accept(socket, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR { continue }
                return
            }
            handle(connection)
            close(connection)
        }
    }

    private func handle(_ connection: Int32) {
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        var head: [String] = []
        var bodyStart = 0
        var length = 0
        while true {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            bytes += buffer[0..<count]
            if head.isEmpty, let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) {
                head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
                bodyStart = end.upperBound
                for line in head.dropFirst() where line.lowercased().hasPrefix("content-length:") {
                    length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
            if !head.isEmpty && bytes.count - bodyStart >= length { break }
        }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let requestLine = head[0].split(separator: " ")
        let (status, wait) = locked { () -> (Int, TimeInterval) in
            holding = true
            return (statuses.isEmpty ? 200 : statuses.removeFirst(), delay)
        }
        if wait > 0 { Thread.sleep(forTimeInterval: wait) }
        let request = Received(method: String(requestLine.first ?? ""), path: String(requestLine.dropFirst().first ?? ""),
                               headers: headers, body: String(decoding: bytes[bodyStart..<(bodyStart + length)], as: UTF8.self),
                               status: status)
        locked {
            received.append(request)
            holding = false
        }
        let answer = Array("HTTP/1.1 \(status) X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
        _ = answer.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}
