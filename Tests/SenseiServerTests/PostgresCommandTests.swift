import Foundation
import Testing
import SenseiTestSupport

/// The `sensei-server` binary's commands with `--database` (or
/// SENSEI_DATABASE_URL): tokens live in PostgreSQL, and backup and restore,
/// which copy SQLite's file, refuse and name PostgreSQL's own tools.
@Suite("Commands on PostgreSQL")
struct PostgresCommandTests {
    @Test(.enabled(if: TestBackend.current == .postgresql, "needs the test PostgreSQL"))
    func tokenCommandsCreateListAndRevokeInPostgreSQL() async throws {
        try await withTemporaryDirectory { directory in
            let url = try await PostgresServer.started().database(for: directory).description
            let database = ["--database", url]
            let created = try await ServerProcess.run(["token", "create", "--name", "esp32-porch", "--scope", "write"] + database)
            #expect(created.status == 0, "\(created.error)")
            let secret = created.output.trimmingCharacters(in: .newlines)
            #expect(secret.hasPrefix("sensei_"))

            let duplicate = try await ServerProcess.run(["token", "create", "--name", "esp32-porch", "--scope", "read"] + database)
            #expect(duplicate.status != 0)
            #expect(duplicate.error.contains("a token named 'esp32-porch' already exists"))

            // The server on the same database takes the token; the URL comes from the environment.
            let environment = ["SENSEI_DATABASE_URL": url, "SENSEI_TOKEN": ""]
            let (server, port) = try await ServerProcess.start(dataDirectory: directory + "/data", environment: environment)
            defer { _ = server.stop() }
            #expect(!server.log.contains("created admin token"))  // a token exists: none generated
            let device = TestHTTPClient(port: port, token: secret)
            #expect(try await device.get("/sensors").status == 200)
            #expect(try await device.post("/sensors", json: #"{"code":"porch"}"#).status == 403)

            let listing = { try await runTool(ServerProcess.executable.path, ["token", "list"], environment: environment) }
            // The server records the use off the request: wait for it, bounded.
            try await waitUntil("the token's use is recorded") {
                try await listing().output.split(separator: "\n").last.map { !$0.hasSuffix("never") } ?? false
            }
            let list = try await listing()
            #expect(list.status == 0)
            let lines = list.output.split(separator: "\n")
            #expect(lines.first?.hasPrefix("NAME         SCOPE  CREATED") == true)
            #expect(lines.count == 2)
            #expect(lines[1].hasPrefix("esp32-porch  write  "))
            #expect(!list.output.contains(secret))

            let revoked = try await ServerProcess.run(["token", "revoke", "esp32-porch"] + database)
            #expect(revoked.status == 0)
            #expect(revoked.output == "revoked esp32-porch\n")
            // Revoked through another process: refused within the token cache's bound.
            try await waitUntil("the revoked token is refused", seconds: 10) { try await device.get("/sensors").status == 401 }
            #expect(try await ServerProcess.run(["token", "revoke", "esp32-porch"] + database).status != 0)
        }
    }

    @Test(arguments: [("backup", "pg_dump"), ("restore", "pg_restore")])
    func backupAndRestoreRefuseAPostgreSQLDatabaseNamingItsTools(command: String, tool: String) async throws {
        try await withTemporaryDirectory { directory in
            // Refused before any connection: the URL needs no server behind it.
            let url = "postgresql://sensei@127.0.0.1:1/sensei"
            let command = [command, directory + "/copy.sqlite", "--data-dir", directory + "/data"]
            for (arguments, environment) in [(command + ["--database", url], [:]),
                                             (command, ["SENSEI_DATABASE_URL": url])] {
                let result = try await runTool(ServerProcess.executable.path, arguments, environment: environment)
                #expect(result.status != 0)
                #expect(result.error.contains("\(command[0]) works on the data directory's SQLite file, not on PostgreSQL"),
                        "\(result.error)")
                #expect(result.error.contains(tool + " "))
                #expect(!FileManager.default.fileExists(atPath: directory + "/copy.sqlite"))
            }
        }
    }
}
