import Foundation
import InMemoryLogging
import Logging
import SenseiServer

/// A real server on a free loopback port with its own data directory, and
/// clients holding an admin, a write-only and a read-only token: the one
/// live harness of the server's and the dashboard's tests.
package struct TestServer: Sendable {
    package let application: SenseiApplication
    package let dataDirectory: String
    package let logs: InMemoryLogHandler
    package let adminToken: String
    package let writeToken: String
    package let readToken: String

    package var port: Int { application.port }
    /// The SQLite store, for the tests that audit its file (they run on SQLite only).
    package var store: SenseiStore { application.store }
    package var admin: TestHTTPClient { TestHTTPClient(port: port, token: adminToken) }
    package var writer: TestHTTPClient { TestHTTPClient(port: port, token: writeToken) }
    package var reader: TestHTTPClient { TestHTTPClient(port: port, token: readToken) }
    /// A client with no token.
    package var anonymous: TestHTTPClient { TestHTTPClient(port: port, token: nil) }
}

/// Starts a server on `dataDirectory` (a new temporary one if nil), runs
/// `body`, and shuts the server down however `body` ends. Its turn comes
/// from `TestServerGate`: a few servers at once.
package func withTestServer<T>(
    dataDirectory: String? = nil,
    configure: (inout SenseiApplication.Configuration) -> Void = { _ in },
    _ body: (TestServer) async throws -> T
) async throws -> T {
    try await TestServerGate.shared.withTurn {
        if let dataDirectory {
            return try await runTestServer(in: dataDirectory, configure: configure, body)
        }
        return try await withTemporaryDirectory { directory in
            try await runTestServer(in: directory, configure: configure, body)
        }
    }
}

private func runTestServer<T>(
    in directory: String,
    configure: (inout SenseiApplication.Configuration) -> Void,
    _ body: (TestServer) async throws -> T
) async throws -> T {
    var configuration = SenseiApplication.Configuration()
    configuration.dataDirectory = directory
    configuration.http.host = "127.0.0.1"
    configuration.http.port = 0
    configuration.http.threads = 4
    configure(&configuration)
    // Opening the store (PostgreSQL's cluster started once), minting the
    // tokens, start and shutdown block: off the pool.
    let server = try await offThePool { [configuration] in try startTestServer(in: directory, configuration) }
    return try await withCleanup {
        do {
            return try await body(server)
        } catch {
            // What the server said of itself, for a test that failed by throwing.
            for entry in server.logs.entries where entry.level >= .notice {
                print("server log (\(directory)): \(entry.level) \(entry.message)")
            }
            throw error
        }
    } cleanup: {
        await server.application.shutdown()
    }
}

private func startTestServer(in directory: String, _ configuration: SenseiApplication.Configuration) throws -> TestServer {
    var configuration = configuration
    if TestBackend.current == .postgresql, configuration.database == nil {
        // The same directory, the same database: a restarted server finds its data.
        configuration.database = try PostgresServer.shared.get().database(for: directory)
    }
    let logs = InMemoryLogHandler()
    let application = try SenseiApplication(configuration: configuration, logger: Logger(label: "test") { _ in logs })
    // The database keeps only digests: on a reused directory, mint new
    // secrets under new names, and leave the old ones valid (a client from
    // before a restart keeps working, as a device's would).
    let taken = Set(try application.tokens.tokens().map(\.name))
    func mint(_ scope: Scope) throws -> String {
        let name = "test-\(scope.rawValue)"
        return try application.tokens.createToken(
            name: taken.contains(name) ? name + "-" + UUID().uuidString.prefix(8) : name, scope: scope, at: .now())
    }
    let admin = try mint(.admin), write = try mint(.write), read = try mint(.read)
    try application.start()
    return TestServer(application: application, dataDirectory: directory, logs: logs,
                      adminToken: admin, writeToken: write, readToken: read)
}
