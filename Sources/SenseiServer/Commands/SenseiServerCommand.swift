import ArgumentParser
import Foundation
import Logging

/// `sensei-server`: serve by default, manage tokens, back up and restore.
public struct SenseiServerCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "sensei-server",
        abstract: "The Sensei sensor hub: devices post readings over HTTP, dashboards read them.",
        subcommands: [ServeCommand.self, TokenCommand.self, BackupCommand.self, RestoreCommand.self],
        defaultSubcommand: ServeCommand.self)

    public init() {}
}

/// Where the database and the generated token live.
struct DataDirectoryOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "Directory for the database and the generated admin token.")
    var dataDirectory = "./sensei-data"

    @Option(name: .customLong("database"),
            help: "PostgreSQL instead of the data directory's SQLite file: postgresql://user:pass@host[:port]/db[?sslmode=require]; or set SENSEI_DATABASE_URL, which keeps a password out of ps.")
    var database: String?
}

extension DataDirectoryOptions {
    /// --database, else SENSEI_DATABASE_URL; nil (SQLite) when neither is set.
    func databaseURL() throws -> DatabaseURL? {
        let text = database ?? ProcessInfo.processInfo.environment["SENSEI_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        do {
            return try text.map(DatabaseURL.init)
        } catch let error as DatabaseURLError {
            throw ValidationError(error.description)
        }
    }

    /// The store: PostgreSQL with `--database`, else the data directory's
    /// SQLite file (both created if new).
    func openStore() throws -> any SenseiStorage {
        if let url = try databaseURL() {
            return try PostgresStore(url: url, logger: Logger(label: "sensei-server"))
        }
        try DataDirectory.prepare(dataDirectory)
        return try SenseiStore(path: SenseiApplication.databasePath(in: dataDirectory))
    }

    /// `backup` and `restore` copy the data directory's SQLite file; with
    /// PostgreSQL they refuse and name its own tools, which copy a live
    /// database consistently and keep its roles and settings.
    func requireSQLite(_ command: String, instead: String) throws {
        guard try databaseURL() != nil else { return }
        throw ValidationError("""
            \(command) works on the data directory's SQLite file, not on PostgreSQL (--database or \
            SENSEI_DATABASE_URL); use PostgreSQL's own tools instead: \(instead)
            """)
    }
}
