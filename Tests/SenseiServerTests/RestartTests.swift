import Foundation
import Logging
import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

@Suite("Restart and shutdown")
struct RestartTests {
    @Test func everythingWrittenIsThereAfterARestart() async throws {
        try await withTemporaryDirectory { directory in
            let items = (0..<500).map { #"{"timestamp":\#(1_700_000_000 + $0 * 30),"value":\#(Double($0) / 4)}"# }
            let before: String = try await withTestServer(dataDirectory: directory) { server in
                #expect(try await server.writer.post("/sensors/kitchen/data", json: #"{"data":[\#(items.joined(separator: ","))]}"#).status == 201)
                #expect(try await server.admin.post("/sensors", json: #"{"code":"empty","units":"lx"}"#).status == 201)
                #expect(try await server.writer.post("/sensor_data", json: #"{"sensor_code":"legacy","value":"7"}"#).status == 201)
                return try await server.reader.get("/sensors").text
            }
            try await withTestServer(dataDirectory: directory) { server in
                #expect(try await server.reader.get("/sensors").text == before)
                let all = try await server.reader.get("/sensors/kitchen/data?limit=10000&order=asc").json["data"]!.arrayValue!
                #expect(all.count == 500)
                #expect(all.last?["value"] == .number(124.75))
                if TestBackend.current == .sqlite { #expect(try server.store.integrityCheck() == "ok") }
            }
        }
    }

    /// Regression: the listening socket MHD hands back on quiesce was never
    /// closed, so after a shutdown the old port still accepted connections
    /// (into a backlog nobody read) instead of refusing them.
    @Test func afterShutdownThePortRefusesConnections() async throws {
        let port = try await withTestServer { server in server.port }
        #expect(throws: HTTPClientError.self) { try TestHTTPClient(port: port).connect() }
    }

    /// Regression: the listening socket had SO_REUSEPORT, so a second
    /// server (another data directory, say) started on a taken port shared it,
    /// and the kernel split the devices' readings between two databases.
    @Test func aSecondServerOnATakenPortRefusesToStart() async throws {
        try await withTestServer { first in
            try await withTemporaryDirectory { directory in
                var configuration = SenseiApplication.Configuration()
                configuration.dataDirectory = directory
                configuration.http.host = "127.0.0.1"
                configuration.http.port = UInt16(first.port)
                let second = try SenseiApplication(configuration: configuration, logger: Logger(label: "test"))
                #expect(throws: HTTPServerError.self) { try second.start() }
                await second.shutdown()
            }
            #expect(try await first.reader.get("/health").status == 200)
        }
    }

    @Test func binaryFirstStartTokenFileAndCleanSIGTERM() async throws {
        try await withTemporaryDirectory { directory in
            let data = directory + "/data"
            let (server, port) = try await ServerProcess.start(dataDirectory: data, environment: ["SENSEI_TOKEN": ""])
            let tokenPath = data + "/admin-token"
            #expect(server.log.contains("it is in \(tokenPath)"))
            let token = try String(contentsOfFile: tokenPath, encoding: .utf8).trimmingCharacters(in: .newlines)
            #expect(!server.log.contains(token))
            let attributes = try FileManager.default.attributesOfItem(atPath: tokenPath)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)

            let client = TestHTTPClient(port: port, token: token)
            for value in 0..<20 {
                #expect(try await client.post("/sensors/t/data", json: #"{"value":\#(value)}"#).status == 201)
            }
            #expect(await server.stop(signal: SIGTERM) == 0)
            #expect(server.log.contains("stopping"))
            #expect(server.log.contains("stopped"))

            // Same data directory, same token: all twenty readings are back.
            let (again, port2) = try await ServerProcess.start(dataDirectory: data, environment: ["SENSEI_TOKEN": ""])
            #expect(!again.log.contains("created admin token"))
            let sensor = try await TestHTTPClient(port: port2, token: token).get("/sensors/t").json
            #expect(sensor["count"] == .number(20))
            #expect(await again.stop(signal: SIGINT) == 0)
        }
    }

    @Test func tokenCommandsCreateListAndRevoke() async throws {
        try await withTemporaryDirectory { directory in
            let data = ["--data-dir", directory + "/data"]
            let created = try await ServerProcess.run(["token", "create", "--name", "esp32-porch", "--scope", "write"] + data)
            #expect(created.status == 0)
            let secret = created.output.trimmingCharacters(in: .newlines)
            #expect(secret.hasPrefix("sensei_"))

            let duplicate = try await ServerProcess.run(["token", "create", "--name", "esp32-porch", "--scope", "read"] + data)
            #expect(duplicate.status != 0)
            #expect(duplicate.error.contains("a token named 'esp32-porch' already exists"))
            #expect(try await ServerProcess.run(["token", "create", "--name", "x", "--scope", "root"] + data).status != 0)

            let (server, port) = try await ServerProcess.start(dataDirectory: directory + "/data")
            defer { _ = server.stop() }
            #expect(!server.log.contains("created admin token"))  // a token exists: none generated
            let device = TestHTTPClient(port: port, token: secret)
            #expect(try await device.post("/sensor_data", json: #"{"sensor_code":"porch","value":"1"}"#).status == 201)
            #expect(try await device.delete("/sensors/porch").status == 403)

            let list = try await ServerProcess.run(["token", "list"] + data)
            #expect(list.status == 0)
            let lines = list.output.split(separator: "\n")
            #expect(lines.first?.hasPrefix("NAME         SCOPE  CREATED") == true)
            #expect(lines.count == 2)
            #expect(lines[1].hasPrefix("esp32-porch  write  "))
            #expect(!lines[1].hasSuffix("never"))  // used just now
            #expect(!list.output.contains(secret))

            let revoked = try await ServerProcess.run(["token", "revoke", "esp32-porch"] + data)
            #expect(revoked.status == 0)
            #expect(try await device.post("/sensor_data", json: #"{"sensor_code":"porch","value":"2"}"#).status == 401)
            #expect(try await ServerProcess.run(["token", "revoke", "esp32-porch"] + data).status != 0)
        }
    }

    @Test func sigtermUnderLoadLosesNothingAcknowledged() async throws {
        try await withTemporaryDirectory { directory in
            let data = directory + "/data"
            let (server, port) = try await ServerProcess.start(dataDirectory: data, environment: ["SENSEI_TOKEN": "load-test"])
            let client = TestHTTPClient(port: port, token: "load-test")
            let acknowledged = AcknowledgedReadings()
            let writers = (0..<8).map { writer in
                Thread {
                    for index in 0..<10_000 {
                        let timestamp = 1_700_000_000_000 + writer * 100_000 + index
                        let body = #"{"timestamp":\#(Double(timestamp) / 1000),"value":\#(index)}"#
                        guard let response = try? client.post("/sensors/w\(writer)/data", json: body) else { return }
                        guard response.status == 201 else { return }
                        acknowledged.add(writer: writer, timestamp: Int64(timestamp))
                    }
                }
            }
            writers.forEach { $0.start() }
            try await waitUntil(seconds: 30) { acknowledged.count >= 300 }
            #expect(acknowledged.count >= 300)
            let status = await server.stop(signal: SIGTERM)
            #expect(status == 0, "sensei-server exited with \(status); its log:\n\(server.log.suffix(4_000))")
            #expect(try await waitUntil(seconds: 30) { !writers.contains(where: { $0.isExecuting }) }, "writers still running")

            let (again, port2) = try await ServerProcess.start(dataDirectory: data, environment: ["SENSEI_TOKEN": "load-test"])
            defer { _ = again.stop() }
            let reader = TestHTTPClient(port: port2, token: "load-test")
            for writer in 0..<8 {
                let stored = try await reader.get("/sensors/w\(writer)/data?limit=10000&order=asc").json["data"]?.arrayValue ?? []
                let storedTimes = Set(stored.compactMap { $0["timestamp"]?.stringValue.flatMap(Timestamp.init(rfc3339:))?.milliseconds })
                let missing = acknowledged.timestamps(of: writer).subtracting(storedTimes)
                #expect(missing.isEmpty, "writer \(writer): \(missing.count) acknowledged readings lost")
            }
        }
    }
}

private final class AcknowledgedReadings: @unchecked Sendable {
    private let lock = NSLock()
    private var byWriter: [Int: Set<Int64>] = [:]
    private var total = 0

    func add(writer: Int, timestamp: Int64) {
        lock.lock()
        defer { lock.unlock() }
        byWriter[writer, default: []].insert(timestamp)
        total += 1
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return total
    }

    func timestamps(of writer: Int) -> Set<Int64> {
        lock.lock()
        defer { lock.unlock() }
        return byWriter[writer] ?? []
    }
}
