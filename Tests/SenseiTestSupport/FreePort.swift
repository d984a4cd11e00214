import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A loopback port nothing listens on now, for a child server (InfluxDB,
/// mosquitto, PostgreSQL) to take: bind port 0, read what the kernel chose, close.
package enum FreePort {
    package static func find() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw FreePortError(errno: errno) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

package struct FreePortError: Error, CustomStringConvertible {
    let errno: Int32
    package var description: String { "no free loopback port: errno \(errno)" }
}
