import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A real InfluxDB (Debian's `influxd`, 1.6) for the differential and import tests:
/// started once per test process on private loopback ports, with its meta,
/// data and WAL in a temporary directory and reporting off; stopped when the
/// process exits.
package final class InfluxDBServer: @unchecked Sendable {
    package let port: Int
    package let directory: String
    private let process: ChildProcess

    /// The differential test's instance, or why there is none (no `influxd` on this machine).
    package static let shared = start()
    /// The import tests' own instance: their databases would otherwise show in
    /// the differential test's `SHOW DATABASES` when the two run at once.
    package static let forImports = start()

    private static func start() -> Result<InfluxDBServer, InfluxDBUnavailable> {
        do {
            let server = try InfluxDBServer()
            runningServers.withLock { servers in
                if servers.isEmpty { atexit { runningServers.withLock { $0.forEach { $0.stop() } } } }
                servers.append(server)
            }
            return .success(server)
        } catch let error as InfluxDBUnavailable {
            return .failure(error)
        } catch {
            return .failure(InfluxDBUnavailable(description: "\(error)"))
        }
    }

    package static var executable: String? {
        ["/usr/bin/influxd", "/usr/local/bin/influxd"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    private init() throws {
        guard let executable = Self.executable else {
            throw InfluxDBUnavailable(description: "influxd not installed (scripts/install-deps.sh installs Debian's influxdb)")
        }
        directory = NSTemporaryDirectory() + "sensei-influxd-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        port = try FreePort.find()
        let rpcPort = try FreePort.find()
        let config = """
            reporting-disabled = true
            bind-address = "127.0.0.1:\(rpcPort)"
            [meta]
              dir = "\(directory)/meta"
            [data]
              dir = "\(directory)/data"
              wal-dir = "\(directory)/wal"
              query-log-enabled = false
            [http]
              bind-address = "127.0.0.1:\(port)"
              log-enabled = false
            [monitor]
              store-enabled = false
            [continuous_queries]
              enabled = false
            """
        try config.write(toFile: directory + "/influxd.conf", atomically: true, encoding: .utf8)
        process = try ChildProcess(executable, ["-config", directory + "/influxd.conf"])
        let client = TestHTTPClient(port: port)
        let ready = waitUntil(seconds: 30, every: .milliseconds(50)) {
            (try? client.request("GET", "/ping", token: .some(nil)).status) == 204
        }
        guard ready else {
            process.signal(SIGKILL)
            throw InfluxDBUnavailable(description: "influxd did not answer /ping within 30 s: \(process.error.suffix(2000))")
        }
    }

    package func stop() {
        process.signal(SIGTERM)
        if !process.waitForExit(seconds: 10) { process.signal(SIGKILL) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A request to influxd; a chunked body (Go's answer past 4 KB) comes back whole.
    package func request(_ method: String, _ path: String, body: [UInt8]? = nil, contentType: String? = nil,
                 headers: [String: String] = [:]) throws -> HTTPResponse {
        var response = try TestHTTPClient(port: port).request(method, path, body: body, token: .some(nil),
                                                              contentType: contentType, headers: headers)
        if response.headers["transfer-encoding"]?.lowercased() == "chunked" { response.body = Self.dechunk(response.body) }
        return response
    }

    package static func dechunk(_ body: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while let lineEnd = body[index...].firstRange(of: [0x0D, 0x0A]) {
            let sizeText = String(decoding: body[index..<lineEnd.lowerBound], as: UTF8.self)
            guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16), size > 0 else { break }
            let start = lineEnd.upperBound
            out += body[start..<min(body.count, start + size)]
            index = start + size + 2
            guard index < body.count else { break }
        }
        return out
    }
}

private let runningServers = Mutex<[InfluxDBServer]>([])

package struct InfluxDBUnavailable: Error, CustomStringConvertible {
    package let description: String
}
