import Logging
import SenseiTestSupport
import Testing
@testable import SenseiServer

/// `--database`: the URL forms libpq takes, and what is refused with a reason.
@Suite("Database URL")
struct DatabaseURLTests {
    @Test func fullFormWithEscapedPassword() throws {
        let url = try DatabaseURL("postgresql://sensei:p%40ss%3Aword@db.lan:6543/hub?sslmode=verify-full&sslrootcert=/etc/ca.pem")
        #expect(url.user == "sensei")
        #expect(url.password == "p@ss:word")
        #expect(url.host == "db.lan")
        #expect(url.port == 6543)
        #expect(url.database == "hub")
        #expect(url.sslMode == .verifyFull)
        #expect(url.rootCertificate == "/etc/ca.pem")
        // Logs and /health never show the password.
        #expect(url.description == "postgresql://sensei@db.lan:6543/hub")
    }

    @Test func defaultsAreLibpqs() throws {
        let url = try DatabaseURL("postgres://sensei@db/hub")
        #expect(url.port == 5432)
        #expect(url.password == nil)
        #expect(url.sslMode == .prefer)
        #expect(url.socketPath == nil)
    }

    @Test func unixSocketDirectory() throws {
        let url = try DatabaseURL("postgresql:///hub?host=/run/postgresql&user=sensei")
        #expect(url.socketPath == "/run/postgresql")
        #expect(url.host == nil)
        #expect(url.user == "sensei")
        #expect(url.description == "postgresql://sensei@/hub?host=/run/postgresql")
    }

    @Test(arguments: [
        ("mysql://u@h/db", "expected postgresql://"),
        ("postgresql://u@h", "no database name"),
        ("postgresql://u@h/db?sslmode=always", "sslmode 'always' is not one of"),
        ("postgresql://u@h/db?sslcert=x", "unknown parameter 'sslcert'"),
        ("postgresql://u@h/db?port=99999", "port '99999' is not a port number"),
    ])
    func refusedWithAReason(text: String, reason: String) {
        #expect {
            try DatabaseURL(text)
        } throws: { error in
            "\(error)".contains(reason) && "\(error)".hasPrefix("--database: ")
        }
    }
}

/// TLS to a real PostgreSQL (the test cluster offers it with a self-signed
/// certificate): `require` encrypts, `verify-full` checks the certificate and
/// the host name against `sslrootcert`, and a certificate that does not verify
/// is refused, not used.
@Suite("PostgreSQL TLS")
struct PostgresTLSTests {
    private func encrypted(_ url: DatabaseURL) throws -> Bool {
        let store = try PostgresStore(url: url, logger: Logger(label: "test"))
        defer { try? store.close() }
        return try store.read { session in
            try session.row("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")?.decode(Bool.self) ?? false
        }
    }

    private func url(_ server: PostgresServer, host: String, _ parameters: String) throws -> DatabaseURL {
        let database = try server.database(for: "tls-\(host)-\(parameters)").database
        return try DatabaseURL("postgresql://postgres@\(host):\(server.port)/\(database)?\(parameters)")
    }

    @Test func requireEncrypts() async throws {
        let server = try await PostgresServer.started()
        #expect(try encrypted(url(server, host: "127.0.0.1", "sslmode=require")))
        #expect(try !encrypted(url(server, host: "127.0.0.1", "sslmode=disable")))
    }

    @Test func verifyFullChecksTheCertificateAndHost() async throws {
        let server = try await PostgresServer.started()
        #expect(try encrypted(url(server, host: "localhost", "sslmode=verify-full&sslrootcert=\(server.certificatePath)")))
        // Against the system's CAs the self-signed certificate does not verify.
        #expect(throws: PostgresStoreError.self) {
            try encrypted(url(server, host: "localhost", "sslmode=verify-full"))
        }
    }
}
