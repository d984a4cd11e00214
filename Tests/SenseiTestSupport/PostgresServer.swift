import Foundation
import SenseiServer
import Testing
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A real PostgreSQL (Debian's `postgresql`) for the server's tests: one
/// cluster a test process, initialised in a temporary directory and started
/// as the `postgres` user (when the tests run as root, as in CI) on a private
/// loopback port, stopped when the process exits. Each test server gets a
/// database of its own (`database(for:)`), so tests never see each other's
/// sensors.
///
/// `fsync=off`: the tests check behaviour, not what survives a power cut;
/// creating a database a test is 10 times faster without the syncs.
package final class PostgresServer: @unchecked Sendable {
    package let port: Int
    package let directory: String
    /// The server's self-signed TLS certificate (for `localhost` and
    /// 127.0.0.1): what `sslrootcert=` names to verify it.
    package var certificatePath: String { directory + "/server.crt" }
    private let process: ChildProcess
    private let databases = Mutex<(next: Int, byKey: [String: DatabaseURL])>((1, [:]))

    /// The cluster of this test process, or why there is none.
    package static let shared: Result<PostgresServer, PostgresUnavailable> = {
        do {
            let server = try PostgresServer()
            atexit { if case .success(let server) = PostgresServer.shared { server.stop() } }
            return .success(server)
        } catch let error as PostgresUnavailable {
            return .failure(error)
        } catch {
            return .failure(PostgresUnavailable(description: "\(error)"))
        }
    }()

    /// Debian's server binaries, newest version first.
    package static var binaries: String? {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.compactMap(Int.init).sorted(by: >).map { "\(root)/\($0)/bin" }
            .first { FileManager.default.isExecutableFile(atPath: $0 + "/postgres") }
    }

    private static var runsAsRoot: Bool { getuid() == 0 }

    private init() throws {
        guard let bin = Self.binaries else {
            throw PostgresUnavailable(description: "no PostgreSQL server installed (scripts/install-deps.sh installs Debian's postgresql)")
        }
        directory = NSTemporaryDirectory() + "sensei-postgres-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if Self.runsAsRoot {
            // PostgreSQL refuses to run as root: its directory is the postgres user's.
            _ = try runTool("/bin/chown", ["postgres:postgres", directory])
        }
        let initdb = try runTool(Self.asServerUser(bin + "/initdb").executable,
                                 Self.asServerUser(bin + "/initdb").arguments + [
                                     "-D", directory + "/data", "-U", "postgres", "--auth=trust", "-E", "UTF8",
                                     "--no-sync",
                                 ], timeout: 120)
        guard initdb.status == 0 else {
            throw PostgresUnavailable(description: "initdb failed: \(initdb.error.suffix(2000))")
        }
        try Self.makeCertificate(in: directory)
        (port, process) = try Self.start(bin, in: directory)
    }

    /// Starts the cluster on a free port. The port found free may be taken
    /// before PostgreSQL binds it (by another test process's connections, or
    /// its own PostgreSQL): then this one exits, and a new port is tried. Its
    /// readiness is asked through the Unix socket in its own directory, never
    /// the TCP port, which could answer for another cluster.
    private static func start(_ bin: String, in directory: String) throws -> (Int, ChildProcess) {
        var failures: [String] = []
        for _ in 0..<5 {
            let port = try FreePort.find()
            let postgres = asServerUser(bin + "/postgres")
            let process = try ChildProcess(postgres.executable, postgres.arguments + [
                "-D", directory + "/data", "-p", "\(port)", "-k", directory, "-c", "listen_addresses=127.0.0.1",
                "-c", "fsync=off", "-c", "max_connections=400", "-c", "shared_buffers=64MB",
                // TLS on offer, as a managed PostgreSQL has it: `sslmode=require` and
                // `verify-full` are tested against it; the harness itself uses `disable`.
                "-c", "ssl=on", "-c", "ssl_cert_file=\(directory)/server.crt",
                "-c", "ssl_key_file=\(directory)/server.key",
            ])
            let ready = waitUntil(seconds: 60, every: .milliseconds(50)) {
                !process.isRunning || (try? psql(host: directory, port: port, "SELECT 1").status) == 0
            }
            if ready && process.isRunning { return (port, process) }
            process.signal(SIGKILL)
            failures.append("port \(port): \(process.error.suffix(500))")
        }
        throw PostgresUnavailable(description: "postgres did not start: \(failures.joined(separator: "; "))")
    }

    /// A new, empty database for `key` (a test server's data directory), or
    /// the one made for it before: a server restarted on the same directory
    /// finds its data again.
    package func database(for key: String) throws -> DatabaseURL {
        let (url, isNew) = databases.withLock { databases -> (DatabaseURL, Bool) in
            if let url = databases.byKey[key] { return (url, false) }
            let name = "sensei_test_\(databases.next)"
            databases.next += 1
            let url = try! DatabaseURL("postgresql://postgres@127.0.0.1:\(port)/\(name)?sslmode=disable")
            databases.byKey[key] = url
            return (url, true)
        }
        if isNew {
            let made = try Self.psql(port: port, "CREATE DATABASE \(url.database)")
            guard made.status == 0 else {
                throw PostgresUnavailable(description: "CREATE DATABASE failed: \(made.error)")
            }
        }
        return url
    }

    /// Runs SQL as the `postgres` superuser in `database`; the tool's result.
    package func psql(_ sql: String, database: String = "postgres") throws -> ToolResult {
        try Self.psql(port: port, sql, database: database)
    }

    /// Starts `psql` running `sql` as the `postgres` superuser in `database`,
    /// without waiting for it: another application's session, for as long
    /// as its SQL keeps it busy.
    package func session(_ sql: String, database: String) throws -> ChildProcess {
        try ChildProcess("psql", Self.psqlArguments(port: port, sql, database: database))
    }

    /// `host`: 127.0.0.1, or the directory of the cluster's Unix socket.
    private static func psql(host: String = "127.0.0.1", port: Int, _ sql: String,
                             database: String = "postgres") throws -> ToolResult {
        try runTool("psql", psqlArguments(host: host, port: port, sql, database: database), timeout: 60)
    }

    /// `psql` running `sql` as the `postgres` superuser, stopping at its first error.
    private static func psqlArguments(host: String = "127.0.0.1", port: Int, _ sql: String,
                                      database: String) -> [String] {
        ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", host, "-p", "\(port)",
         "-U", "postgres", "-d", database, "-c", sql]
    }

    /// A self-signed P-256 certificate for `localhost` and 127.0.0.1; its key
    /// readable by the server's user only, as PostgreSQL requires.
    private static func makeCertificate(in directory: String) throws {
        let made = try runTool("openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", directory + "/server.key", "-out", directory + "/server.crt", "-days", "2",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ])
        guard made.status == 0 else { throw PostgresUnavailable(description: "openssl req failed: \(made.error)") }
        chmod(directory + "/server.key", 0o600)
        if runsAsRoot {
            _ = try runTool("/bin/chown", ["postgres:postgres", directory + "/server.key", directory + "/server.crt"])
        }
    }

    /// As root, the command runs as the `postgres` user (`runuser`).
    private static func asServerUser(_ executable: String) -> (executable: String, arguments: [String]) {
        runsAsRoot ? ("/usr/sbin/runuser", ["-u", "postgres", "--", executable]) : (executable, [])
    }

    package func stop() {
        // SIGINT: PostgreSQL's fast shutdown (disconnect clients, stop).
        process.signal(SIGINT)
        if !process.waitForExit(seconds: 10) { process.signal(SIGKILL) }
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// The cluster for async tests: starting it (the first time: initdb, seconds)
/// and psql are waited for off the cooperative pool (`offThePool`). Same
/// names: in an async function Swift picks these, and asks for `await`.
extension PostgresServer {
    /// `shared.get()`.
    package static func started() async throws -> PostgresServer {
        try await offThePool { try shared.get() }
    }

    package func database(for key: String) async throws -> DatabaseURL {
        try await offThePool { try self.database(for: key) }
    }

    package func psql(_ sql: String, database: String = "postgres") async throws -> ToolResult {
        try await offThePool { try self.psql(sql, database: database) }
    }
}

package struct PostgresUnavailable: Error, CustomStringConvertible {
    package let description: String
}

/// Which store the live harness gives its servers: `SENSEI_TEST_BACKEND=postgresql`
/// runs the same tests against PostgreSQL (scripts/test.sh does, after the
/// SQLite run).
package enum TestBackend: String, Sendable {
    case sqlite
    case postgresql

    package static let current: TestBackend =
        ProcessInfo.processInfo.environment["SENSEI_TEST_BACKEND"].flatMap(TestBackend.init(rawValue:)) ?? .sqlite
}

extension Trait where Self == ConditionTrait {
    /// For a test of SQLite itself (its file, its pragmas, `server.store`):
    /// skipped when the harness runs on PostgreSQL.
    package static var sqliteOnly: Self {
        .enabled(if: TestBackend.current == .sqlite, "tests the SQLite store itself")
    }
}
