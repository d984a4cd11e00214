import ArgumentParser

/// `sensei-server restore PATH`: installs a backup as the data directory's
/// database. The server must be stopped: it holds the directory's lock.
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Install a backup as the database (stop the server first).",
        discussion: """
            PATH must be a Sensei database that passes PRAGMA integrity_check. It is copied \
            in; the previous database is kept beside it as sensei.sqlite.before-restore-<UTC time>. \
            Refused while a server runs on the data directory.
            """)

    @OptionGroup var data: DataDirectoryOptions

    @Argument(help: "The backup to install.")
    var path: String

    func validate() throws {
        try data.requireSQLite(
            "restore", instead: "pg_restore --clean --if-exists --dbname=\"$SENSEI_DATABASE_URL\" sensei.dump")
    }

    func run() throws {
        let started = ContinuousClock.now
        let result = try SenseiStore.restore(from: path, into: data.dataDirectory)
        print("restored \(result.summary.describedContents) from \(path) into \(data.dataDirectory) in \(formatSeconds(ContinuousClock.now - started))")
        if let previous = result.previousDatabase {
            print("the previous database is kept as \(previous)")
        }
    }
}
