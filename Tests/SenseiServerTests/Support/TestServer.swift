import Foundation
import InMemoryLogging
import Logging
import SenseiModels
@testable import SenseiServer

/// A real server on a free loopback port with its own temporary data
/// directory, and a client holding an admin token.
struct TestServer {
    let application: SenseiApplication
    let dataDirectory: String
    let logs: InMemoryLogHandler
    /// Clients with an admin, a write-only and a read-only token.
    let admin: TestHTTPClient
    let writer: TestHTTPClient
    let reader: TestHTTPClient

    var port: Int { application.port }
    var store: SenseiStore { application.store }
    /// A client with no token.
    var anonymous: TestHTTPClient { TestHTTPClient(port: port, token: nil) }
}

/// Makes a fresh temporary directory, removed after `body`.
func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
    let path = NSTemporaryDirectory() + "sensei-test-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

/// Starts a server on `dataDirectory` (a new temporary one if nil), runs
/// `body`, and shuts the server down however `body` ends.
func withTestServer<T>(
    dataDirectory: String? = nil,
    configure: (inout SenseiApplication.Configuration) -> Void = { _ in },
    _ body: (TestServer) async throws -> T
) async throws -> T {
    if let dataDirectory {
        return try await runTestServer(in: dataDirectory, configure: configure, body)
    }
    return try await withTemporaryDirectory { directory in
        try await runTestServer(in: directory, configure: configure, body)
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
    // The database keeps only digests: on a reused directory, mint new secrets.
    let tokens = try Scope.allCases.reversed().map { scope in
        _ = try application.store.revokeToken(name: "test-\(scope.rawValue)")
        return try application.store.createToken(name: "test-\(scope.rawValue)", scope: scope)
    }
    try application.start()
    defer { application.shutdown() }
    let port = application.port
    let server = TestServer(
        application: application, dataDirectory: directory, logs: logs,
        admin: TestHTTPClient(port: port, token: tokens[0]),
        writer: TestHTTPClient(port: port, token: tokens[1]),
        reader: TestHTTPClient(port: port, token: tokens[2]))
    return try await body(server)
}
