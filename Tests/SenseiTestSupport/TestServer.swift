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
    let logs = InMemoryLogHandler()
    let application = try SenseiApplication(configuration: configuration, logger: Logger(label: "test") { _ in logs })
    // The database keeps only digests: on a reused directory, mint new
    // secrets under new names, and leave the old ones valid (a client from
    // before a restart keeps working, as a device's would).
    let taken = Set(try application.store.tokens().map(\.name))
    func mint(_ scope: Scope) throws -> String {
        let name = "test-\(scope.rawValue)"
        return try application.store.createToken(
            name: taken.contains(name) ? name + "-" + UUID().uuidString.prefix(8) : name, scope: scope)
    }
    let admin = try mint(.admin), write = try mint(.write), read = try mint(.read)
    // Start and shutdown block until the server's threads are up or gone.
    try await offThePool { try application.start() }
    return try await withCleanup {
        try await body(TestServer(application: application, dataDirectory: directory, logs: logs,
                                  adminToken: admin, writeToken: write, readToken: read))
    } cleanup: {
        await offThePool { application.shutdown() }
    }
}
