import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A loopback port nothing listens on now, for a child server (InfluxDB,
/// mosquitto, PostgreSQL) to take.
///
/// Chosen at random below the kernel's ephemeral range
/// (`net.ipv4.ip_local_port_range`, 32768–60999 by default), then bound
/// once to see it free. A port the kernel hands out itself (bind to port 0)
/// comes from that range, the same one every outgoing connection's local
/// port comes from: with hundreds of test connections a second, one of them
/// took such a port between this check and mosquitto's bind ("Address
/// already in use"). Below the range only another listener can take it.
package enum FreePort {
    package static func find() throws -> Int {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let port = Int.random(in: 20_000..<ephemeralStart, using: &generator)
            if isFree(port) { return port }
        }
        throw FreePortError(errno: EADDRINUSE)
    }

    /// The first port of the ephemeral range; 32768 if it cannot be read.
    private static let ephemeralStart: Int = {
        let range = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let start = range.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32_768
        return max(start, 20_100)
    }()

    private static func isFree(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

package struct FreePortError: Error, CustomStringConvertible {
    let errno: Int32
    package var description: String { "no free loopback port: errno \(errno)" }
}
