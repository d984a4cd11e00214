import ArgumentParser

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
}

extension DataDirectoryOptions {
    /// The store in the data directory, both created if new.
    func openStore() throws -> SenseiStore {
        try DataDirectory.prepare(dataDirectory)
        return try SenseiStore(path: SenseiApplication.databasePath(in: dataDirectory))
    }
}
