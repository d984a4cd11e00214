import Foundation
import SenseiModels

#if canImport(Glibc)
import Glibc
#endif

/// A response as the wire carried it.
package struct HTTPResponse: Sendable {
    package var status: Int
    /// Header names lowercased.
    package var headers: [String: String]
    package var body: [UInt8]

    package init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    package var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as JSON; a test fails on a body that is not.
    package var json: JSONValue {
        get throws { try JSONParser.parse(body) }
    }

    /// The `error` message of a JSON error body.
    package var errorMessage: String? { (try? json)?["error"]?.stringValue }
}

package struct HTTPClientError: Error, CustomStringConvertible {
    package let description: String
    package init(description: String) { self.description = description }
}

/// A deliberately small HTTP/1.1 client over a raw loopback socket, so tests
/// can send exactly the bytes they mean, malformed ones included. One
/// connection per request, 10 s timeouts: a hung server fails the test.
package struct TestHTTPClient: Sendable {
    package let port: Int
    package var token: String?

    package init(port: Int, token: String? = nil) {
        self.port = port
        self.token = token
    }

    package func get(_ path: String, token: String?? = nil) throws -> HTTPResponse {
        try request("GET", path, token: token)
    }

    package func post(_ path: String, json: String, token: String?? = nil,
              contentType: String? = "application/json") throws -> HTTPResponse {
        try request("POST", path, body: Array(json.utf8), token: token, contentType: contentType)
    }

    package func patch(_ path: String, json: String, token: String?? = nil) throws -> HTTPResponse {
        try request("PATCH", path, body: Array(json.utf8), token: token, contentType: "application/json")
    }

    package func delete(_ path: String, token: String?? = nil) throws -> HTTPResponse {
        try request("DELETE", path, token: token)
    }

    /// `token`: nil uses the client's token, `.some(nil)` sends no Authorization.
    package func request(_ method: String, _ path: String, body: [UInt8]? = nil, token: String?? = nil,
                 contentType: String? = nil, headers: [String: String] = [:]) throws -> HTTPResponse {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if let bearer = token ?? self.token { head += "Authorization: Bearer \(bearer)\r\n" }
        if let contentType { head += "Content-Type: \(contentType)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        return try raw(Array(head.utf8) + (body ?? []))
    }

    /// Sends `bytes` as they are and reads the answer until the server closes.
    package func raw(_ bytes: [UInt8]) throws -> HTTPResponse {
        let socket = try connect()
        defer { close(socket) }
        try send(bytes, on: socket)
        return try Self.parse(try receiveAll(from: socket))
    }

    package func connect() throws -> Int32 {
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw HTTPClientError(description: "socket: \(errno)") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(descriptor)
            throw HTTPClientError(description: "connect to port \(port): errno \(errno)")
        }
        return descriptor
    }

    package func send(_ bytes: [UInt8], on socket: Int32) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            // The server may answer (413) and close before taking the whole body.
            guard sent > 0 else { return }
            offset += sent
        }
    }

    package func receiveAll(from socket: Int32) throws -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count > 0 {
                received.append(contentsOf: buffer[0..<count])
            } else if count == 0 || errno == ECONNRESET {
                return received
            } else {
                throw HTTPClientError(description: "no answer within 10 s (errno \(errno))")
            }
        }
    }

    package static func parse(_ bytes: [UInt8]) throws -> HTTPResponse {
        guard let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else {
            throw HTTPClientError(description: "incomplete response: \(String(decoding: bytes, as: UTF8.self))")
        }
        let head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw HTTPClientError(description: "bad status line: \(head[0])")
        }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(bytes[end.upperBound...])
        if let length = headers["content-length"].flatMap(Int.init), body.count > length {
            body = Array(body.prefix(length))
        }
        return HTTPResponse(status: status, headers: headers, body: body)
    }
}
