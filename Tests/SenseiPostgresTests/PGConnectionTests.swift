import Foundation
import SenseiPostgres
import SenseiTestSupport
import Testing

@Suite struct PGConnectionTests {
    @Test func aTerminatedBackendIsBrokenAndTransient() async throws {
        try await withConnection { admin, database in
            let idle = try database.connect()
            defer { idle.close() }
            let busy = try database.connect()
            defer { busy.close() }
            #expect(!idle.isBroken)
            for victim in [idle, busy] {
                #expect(try admin.query("SELECT pg_terminate_backend(\(victim.backendPID))")[0].decode(Bool.self))
            }
            // An idle connection learns it from the server's goodbye, without a statement.
            try waitUntil("the terminated idle connection shows as broken", seconds: 20) { idle.isBroken }
            let error = #expect(throws: PGError.self) { try idle.query("SELECT 1") }
            #expect(error?.isTransient == true)
            // Used straight away, it fails with the server's reason (57P01) or a lost connection.
            let busyError = #expect(throws: PGError.self) { try busy.query("SELECT 1") }
            #expect(busyError?.isTransient == true)
            #expect(busyError?.sqlState == nil || busyError?.sqlState == "57P01")
            #expect(busy.isBroken)
        }
    }

    @Test func aBadURLSaysWhatIsWrong() async throws {
        for url in ["postgresql://h/db?nonsense=1", "postgresql://[::1/db", "host=localhost port"] {
            let error = #expect(throws: PGError.self) { try PGConnection(url) }
            #expect(error?.kind == .invalidConnectionString, "\(url)")
            #expect(error?.isTransient == false)
            #expect(error?.description.hasPrefix("invalid PostgreSQL connection string: ") == true)
        }
        // libpq checks the values of known parameters as it connects.
        let badValue = #expect(throws: PGError.self) { try PGConnection("postgresql://h/db?sslmode=sometimes") }
        #expect(badValue?.description.hasSuffix("invalid sslmode value: \"sometimes\"") == true)
    }

    @Test func aRefusedPortIsAClearTransientError() async throws {
        try await offThePool {
            let port = try FreePort.find()
            let start = ContinuousClock.now
            let error = #expect(throws: PGError.self) {
                try PGConnection("postgresql://sensei:secret@127.0.0.1:\(port)/sensei?sslmode=disable")
            }
            #expect(ContinuousClock.now - start < .seconds(15))
            #expect(error?.kind == .connect)
            #expect(error?.isTransient == true)
            let message = error?.description ?? ""
            #expect(message.hasPrefix("could not connect to postgresql://sensei@127.0.0.1:\(port)/sensei: "))
            #expect(message.contains("Connection refused"))
            #expect(!message.contains("secret"))
        }
    }

    @Test func connectsOverUnixSocketAndTLS() async throws {
        try await offThePool {
            let database = try PGTestDatabase()
            let server = database.server
            let socket = try PGConnection("postgresql:///\(database.name)?host=\(server.directory)&port=\(server.port)&user=postgres")
            defer { socket.close() }
            #expect(try socket.query("SELECT inet_server_addr() IS NULL")[0].decode(Bool.self))
            let tls = try PGConnection("postgresql://postgres@localhost:\(server.port)/\(database.name)"
                + "?sslmode=verify-full&sslrootcert=\(server.certificatePath)")
            defer { tls.close() }
            #expect(try tls.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")[0].decode(Bool.self))
        }
    }

    @Test func closedConnectionRefusesUse() async throws {
        try await withConnection { connection, _ in
            connection.close()
            connection.close()
            #expect(connection.isBroken)
            let error = #expect(throws: PGError.self) { try connection.query("SELECT 1") }
            #expect(error?.kind == .usage)
        }
    }

    /// Not a benchmark harness: the figure issue 40 asks for (≤ 0.15 ms),
    /// printed; the bound only catches a hang.
    @Test func selectOneRoundTrip() async throws {
        try await withConnection { connection, _ in
            var times: [Duration] = []
            times.reserveCapacity(2000)
            for _ in 0..<2000 {
                let start = ContinuousClock.now
                _ = try connection.query("SELECT 1")
                times.append(ContinuousClock.now - start)
            }
            times.sort()
            let median = times[times.count / 2]
            print("SELECT 1 round trip over 2,000 runs: median \(median), p99 \(times[times.count * 99 / 100])")
            #expect(median < .milliseconds(50))
        }
    }
}
