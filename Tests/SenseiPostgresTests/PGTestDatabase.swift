import Foundation
import SenseiPostgres
import SenseiTestSupport

/// A database of its own on the test process's PostgreSQL cluster
/// (SenseiTestSupport's `PostgresServer`), for one test.
struct PGTestDatabase {
    let server: PostgresServer
    let name: String

    init() throws {
        server = try PostgresServer.shared.get()
        name = try server.database(for: "SenseiPostgresTests-" + UUID().uuidString).database
    }

    /// The URL libpq takes, over TCP without TLS.
    var url: String { "postgresql://postgres@127.0.0.1:\(server.port)/\(name)?sslmode=disable" }

    func connect(answerTimeout: Duration = .seconds(60)) throws -> PGConnection {
        try PGConnection(url, connectTimeout: .seconds(10), answerTimeout: answerTimeout)
    }
}

/// Runs `body` with a connection to a new database, on a thread of its own
/// (`offThePool`): every call blocks, and on two cores a blocked pool
/// thread stalls the other tests.
func withConnection<T>(_ body: (PGConnection, PGTestDatabase) throws -> T) async throws -> T {
    try await offThePool {
        let database = try PGTestDatabase()
        let connection = try database.connect()
        defer { connection.close() }
        return try body(connection, database)
    }
}

extension PGResult {
    /// One column of every row.
    func values<T: PGDecodable>(_ type: T.Type, at column: Int = 0) throws -> [T] {
        try map { row throws(PGError) in try row.decode(T.self, at: column) }
    }
}
