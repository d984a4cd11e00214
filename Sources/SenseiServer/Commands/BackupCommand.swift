import ArgumentParser
import Foundation

/// `sensei-server backup PATH`: a consistent copy of the database, taken
/// with SQLite's online backup, safe while the server serves and ingests.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the database to PATH, safely while the server runs.",
        discussion: """
            The copy is the database as of one instant, checked with PRAGMA integrity_check \
            and made readable by its owner only. Ingestion goes on while it is taken. \
            Install it with `sensei-server restore PATH`.
            """)

    @OptionGroup var data: DataDirectoryOptions

    @Argument(help: "The file to write.")
    var path: String

    @Flag(help: "Replace PATH if it exists.")
    var force = false

    func validate() throws {
        try data.requireSQLite("backup", instead: "pg_dump --format=custom --file=sensei.dump \"$SENSEI_DATABASE_URL\"")
    }

    func run() throws {
        let started = ContinuousClock.now
        let summary = try SenseiStore.backup(
            from: SenseiApplication.databasePath(in: data.dataDirectory), to: path, overwrite: force)
        print("backed up \(summary.describedContents) to \(path) in \(formatSeconds(ContinuousClock.now - started))")
    }
}

extension DatabaseSummary {
    /// "3 sensors, 1200 readings, 2.4 MB, schema version 1"
    var describedContents: String {
        let size = bytes < 1_000_000 ? "\(bytes / 1000) kB" : String(format: "%.1f MB", Double(bytes) / 1_000_000)
        return "\(counted(sensors, "sensor")), \(counted(readings, "reading")), \(size), schema version \(schemaVersion)"
    }

    private func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
}

func formatSeconds(_ duration: Duration) -> String {
    let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    return String(format: "%.2f s", seconds)
}
