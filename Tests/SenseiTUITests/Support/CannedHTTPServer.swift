import Foundation
import SenseiTestSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A loopback listener that answers every request with one canned response
/// and records the request heads, for what a real server never sends (an HTML
/// error page, a malformed body). `SilentHTTPServer` never answers.
final class CannedHTTPServer: Sendable {
    let port: Int
    private let socket: Int32
    private let heads = Mutex<[String]>([])
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init(status: Int = 200, contentType: String = "application/json", body: String) throws {
        (socket, port) = try openLoopbackListener()
        let response = Array(("HTTP/1.1 \(status) Canned\r\nContent-Type: \(contentType)\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body).utf8)
        Thread.detachNewThread { [self] in
            serve(response)
            finished.signal()
        }
    }

    /// The request heads received so far.
    var requests: [String] { heads.withLock { $0 } }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        finished.wait()
        close(socket)
    }

    private func serve(_ response: [UInt8]) {
        while !stopped.load(ordering: .relaxed) {
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 50) > 0 else { continue }
            let connection = accept(socket, nil, nil)
            guard connection >= 0 else { continue }
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !received.ends(with: Array("\r\n\r\n".utf8)) {
                let count = recv(connection, &buffer, buffer.count, 0)
                guard count > 0 else { break }
                received += buffer[0..<count]
            }
            heads.withLock { $0.append(String(decoding: received, as: UTF8.self)) }
            _ = response.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            close(connection)
        }
    }
}

struct CannedServerError: Error, CustomStringConvertible {
    let description: String
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}

/// A listening socket on a port of loopback the kernel chooses.
func openLoopbackListener() throws -> (socket: Int32, port: Int) {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard socket >= 0, bound == 0, listen(socket, 16) == 0 else {
        if socket >= 0 { close(socket) }
        throw CannedServerError(description: "cannot listen on loopback: errno \(errno)")
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(socket, $0, &length) }
    }
    return (socket, Int(UInt16(bigEndian: address.sin_port)))
}

/// A loopback port nothing listens on.
func closedPort() throws -> Int {
    try FreePort.find()
}
