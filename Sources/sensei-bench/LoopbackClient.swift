#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 loopback address and port, from `http://127.0.0.1:3000`. The bench
/// only ever talks to a server on this machine, so anything else is refused.
struct LoopbackEndpoint: Sendable {
    let host: String
    let port: UInt16

    init(url: String) throws(BenchError) {
        guard url.hasPrefix("http://") else { throw .invalid("\(url): only http:// URLs are supported") }
        var rest = url.dropFirst("http://".count)
        while rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.contains("/") else { throw .invalid("\(url): give the server's root, without a path") }
        let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let port = UInt16(parts[1]), port > 0 else {
            throw .invalid("\(url): expected http://HOST:PORT")
        }
        let host = parts[0] == "localhost" ? "127.0.0.1" : String(parts[0])
        var address = in_addr()
        guard inet_pton(AF_INET, host, &address) == 1, host.hasPrefix("127.") else {
            throw .invalid("\(url): the host must be a loopback address (127.0.0.0/8 or localhost)")
        }
        self.host = host
        self.port = port
    }
}

enum BenchError: Error, CustomStringConvertible {
    case invalid(String)
    case io(String)
    case connectionClosed
    case protocolError(String)
    case server(String)

    var description: String {
        switch self {
        case .invalid(let message), .io(let message), .server(let message): message
        case .connectionClosed: "the server closed the connection"
        case .protocolError(let message): "unexpected HTTP from the server: \(message)"
        }
    }
}

/// Just enough HTTP/1.1 to load data: one keep-alive connection, requests in
/// turn, responses with Content-Length (what sensei-server sends) or ended by close.
final class LoopbackClient {
    struct Reply {
        var status: Int
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    private let endpoint: LoopbackEndpoint
    private let token: String
    private var socket: Int32 = -1
    /// Bytes received past the end of the last response.
    private var pending: [UInt8] = []
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)

    init(endpoint: LoopbackEndpoint, token: String) {
        self.endpoint = endpoint
        self.token = token
    }

    deinit {
        disconnect()
    }

    /// Sends one request with the bearer token. A keep-alive connection the
    /// server has meanwhile closed is reopened once; the requests the bench
    /// sends are safe to repeat (readings carry their timestamps).
    func request(_ method: String, _ path: String, json body: [UInt8]? = nil) throws(BenchError) -> Reply {
        try request(method, path, body: body, contentType: "application/json")
    }

    /// The same with a body of any type (line protocol is `text/plain`).
    func request(_ method: String, _ path: String, body: [UInt8]?, contentType: String) throws(BenchError) -> Reply {
        let reused = socket >= 0
        do {
            return try attempt(method, path, body, contentType)
        } catch .connectionClosed where reused {
            disconnect()
            return try attempt(method, path, body, contentType)
        }
    }

    private func attempt(_ method: String, _ path: String, _ body: [UInt8]?, _ contentType: String) throws(BenchError)
        -> Reply {
        if socket < 0 { try connect() }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(endpoint.host):\(endpoint.port)\r\n"
        head += "Authorization: Bearer \(token)\r\n"
        if let body {
            head += "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n"
        }
        head += "\r\n"
        var bytes = Array(head.utf8)
        if let body { bytes += body }
        try write(bytes)
        return try readReply()
    }

    private func connect() throws(BenchError) {
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw .io("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = endpoint.port.bigEndian
        _ = inet_pton(AF_INET, endpoint.host, &address.sin_addr)
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw .io("cannot connect to \(endpoint.host):\(endpoint.port): \(reason)")
        }
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        socket = descriptor
        pending = []
    }

    private func disconnect() {
        if socket >= 0 { close(socket) }
        socket = -1
        pending = []
    }

    private func write(_ bytes: [UInt8]) throws(BenchError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                send(socket, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE || errno == ECONNRESET { throw .connectionClosed }
                throw .io("send: \(String(cString: strerror(errno)))")
            }
            offset += sent
        }
    }

    /// Reads more bytes into `pending`; false at end of stream.
    private func fill() throws(BenchError) -> Bool {
        while true {
            let count = readBuffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                pending.append(contentsOf: readBuffer[0..<count])
                return true
            }
            if count == 0 { return false }
            if errno == EINTR { continue }
            if errno == ECONNRESET { return false }
            throw .io("recv: \(String(cString: strerror(errno)))")
        }
    }

    private func readReply() throws(BenchError) -> Reply {
        var headerEnd: Int?
        while true {
            headerEnd = Self.find([13, 10, 13, 10], in: pending)
            if headerEnd != nil { break }
            guard try fill() else { throw .connectionClosed }
        }
        let end = headerEnd!
        let lines = String(decoding: pending[0..<end], as: UTF8.self).split(separator: "\r\n")
        pending.removeFirst(end + 4)
        guard let statusLine = lines.first, statusLine.hasPrefix("HTTP/1."),
              let status = statusLine.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
            throw .protocolError("status line \(lines.first.map(String.init) ?? "missing")")
        }
        var length: Int?
        var closes = false
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: " \t")
            if name == "content-length" { length = Int(value) }
            if name == "connection", value.lowercased() == "close" { closes = true }
            if name == "transfer-encoding", value.lowercased() != "identity" {
                throw .protocolError("transfer-encoding \(value) is not supported")
            }
        }
        let body: [UInt8]
        if status == 204 || status == 304 {
            body = []   // never a body, with or without Content-Length (InfluxDB's 204 sends none)
        } else if let length {
            while pending.count < length {
                guard try fill() else { throw .connectionClosed }
            }
            body = Array(pending[0..<length])
            pending.removeFirst(length)
        } else {
            while try fill() {}
            body = pending
            closes = true
        }
        if closes { disconnect() }
        return Reply(status: status, body: body)
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { start in
            needle.indices.allSatisfy { haystack[start + $0] == needle[$0] }
        }
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var slice = self
        while let first = slice.first, set.contains(first) { slice.removeFirst() }
        while let last = slice.last, set.contains(last) { slice.removeLast() }
        return String(slice)
    }
}
