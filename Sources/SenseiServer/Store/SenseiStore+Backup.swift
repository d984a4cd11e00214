import Foundation
import GRDB

#if canImport(Glibc)
import Glibc
#endif

/// What a backup or a restore holds, read from the copy it made.
public struct DatabaseSummary: Sendable, Equatable {
    public let schemaVersion: Int
    public let sensors: Int
    public let readings: Int
    public let bytes: Int
}

/// What `restore` did: the copy it installed and where the old database went.
public struct RestoreResult: Sendable, Equatable {
    public let summary: DatabaseSummary
    /// The previous database, kept under a new name; nil when there was none.
    public let previousDatabase: String?
}

extension SenseiStore {
    /// Writes a consistent copy of the database at `source` to a new file at
    /// `destination`, safe while a server serves and ingests on it.
    ///
    /// SQLite's online backup copies the pages of one read transaction, so
    /// the copy is the database as of one instant. In WAL mode a reader never
    /// blocks the writer: ingestion goes on meanwhile (its WAL just cannot be
    /// checkpointed past that instant until the copy is done). The copy is
    /// checked (`integrity_check`), synced, made owner-only, and only then
    /// renamed to `destination`, so a failed backup never leaves half a file there.
    public static func backup(from source: String, to destination: String, overwrite: Bool) throws -> DatabaseSummary {
        guard FileManager.default.fileExists(atPath: source) else { throw BackupError.noDatabase(source) }
        guard !sameFile(source, destination) else { throw BackupError.sameFile(destination) }
        if FileManager.default.fileExists(atPath: destination) && !overwrite {
            throw BackupError.destinationExists(destination)
        }
        let directory = (destination as NSString).deletingLastPathComponent
        guard directory.isEmpty || FileManager.default.fileExists(atPath: directory) else {
            throw BackupError.noDirectory(directory)
        }
        let partial = destination + ".partial"
        removeDatabaseFiles(partial)
        var installed = false
        defer { if !installed { removeDatabaseFiles(partial) } }
        let summary = try copyDatabase(from: source, to: partial)
        try moveFile(partial, to: destination)
        installed = true
        return summary
    }

    /// Installs the backup at `backup` as the database of `dataDirectory`,
    /// after checking it is a sound Sensei database.
    ///
    /// Refused while a server runs on the directory: it holds the directory's
    /// lock, which this takes for the whole swap (so no server starts halfway
    /// either). The old database is renamed `sensei.sqlite.before-restore-<UTC
    /// time>`, with its -wal (which may hold committed transactions), never deleted.
    public static func restore(from backup: String, into dataDirectory: String, now: Date = Date()) throws -> RestoreResult {
        guard FileManager.default.fileExists(atPath: backup) else { throw BackupError.noBackup(backup) }
        try DataDirectory.prepare(dataDirectory)
        let lock = try DataDirectoryLock(directory: dataDirectory, holder: "sensei-server restore")
        defer { lock.release() }
        let database = SenseiApplication.databasePath(in: dataDirectory)
        guard !sameFile(backup, database) else { throw BackupError.sameFile(backup) }

        // Copy first and check the copy: what was checked is what gets installed.
        let incoming = database + ".restoring"
        removeDatabaseFiles(incoming)
        var installed = false
        defer { if !installed { removeDatabaseFiles(incoming) } }
        let summary = try copyDatabase(from: backup, to: incoming)

        var previous: String?
        if FileManager.default.fileExists(atPath: database) {
            let aside = unusedName(database + ".before-restore-" + fileStamp(now))
            try moveFile(database, to: aside)
            for suffix in ["-wal", "-journal"] where FileManager.default.fileExists(atPath: database + suffix) {
                try moveFile(database + suffix, to: aside + suffix)
            }
            previous = aside
        }
        // The wal-index of the old file, and any stray -wal: neither belongs to the copy.
        removeDatabaseFiles(database)
        try moveFile(incoming, to: database)
        installed = true
        return RestoreResult(summary: summary, previousDatabase: previous)
    }

    /// Checks `path` is a sound Sensei database and tells what it holds.
    public static func inspect(_ path: String) throws -> DatabaseSummary {
        guard FileManager.default.fileExists(atPath: path) else { throw BackupError.noBackup(path) }
        let queue = try openForReading(path)
        defer { try? queue.close() }
        return try queue.read { db in
            try checkSchema(db, path: path)
            return try summarize(db)
        }
    }

    // MARK: - Copying

    /// Backs `source` up into a new file `destination`, then checks and syncs it.
    private static func copyDatabase(from source: String, to destination: String) throws -> DatabaseSummary {
        let reader = try openForReading(source)
        defer { try? reader.close() }
        let copy: DatabaseQueue
        do {
            copy = try DatabaseQueue(path: destination)
        } catch {
            throw BackupError.cannotWrite(destination, "\(error)")
        }
        defer { try? copy.close() }
        let summary = try copy.writeWithoutTransaction { target in
            try reader.read { db in
                // The schema check reads, so the read transaction, and with
                // it the snapshot the backup copies, is open from here on.
                try checkSchema(db, path: source)
                try db.backup(to: target)
            }
            // One self-contained file: no -wal beside the copy.
            try target.execute(sql: "PRAGMA journal_mode = DELETE")
            let integrity = try String.fetchAll(target, sql: "PRAGMA integrity_check")
            guard integrity == ["ok"] else {
                throw BackupError.damaged(source, integrity.prefix(5).joined(separator: "; "))
            }
            return try summarize(target)
        }
        try copy.close()
        chmod(destination, 0o600)
        try syncFile(destination)
        return summary
    }

    /// A read-only connection: reading never changes the source, even its WAL.
    private static func openForReading(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        do {
            return try DatabaseQueue(path: path, configuration: configuration)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw BackupError.notSensei(path, "not an SQLite database")
        }
    }

    private static func checkSchema(_ db: Database, path: String) throws {
        let version: Int
        do {
            version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw BackupError.notSensei(path, "not an SQLite database")
        }
        guard version <= schemaVersion else {
            throw BackupError.notSensei(path, "schema version \(version) is newer than this server's \(schemaVersion)")
        }
        let tables = try Set(String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
        guard version >= 1, tables.isSuperset(of: ["sensors", "readings", "tokens"]) else {
            throw BackupError.notSensei(path, "no Sensei schema in it (user_version \(version))")
        }
    }

    private static func summarize(_ db: Database) throws -> DatabaseSummary {
        let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
        let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0
        return DatabaseSummary(
            schemaVersion: try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0,
            sensors: try Int.fetchOne(db, sql: "SELECT count(*) FROM sensors") ?? 0,
            // A backup from before version 4 has no packed readings.
            readings: (try Int.fetchOne(db, sql: "SELECT count(*) FROM readings") ?? 0)
                + (try db.tableExists("reading_blocks")
                    ? Int.fetchOne(db, sql: "SELECT coalesce(sum(count), 0) FROM reading_blocks") ?? 0 : 0),
            bytes: pages * pageSize)
    }

    // MARK: - Files

    private static func sameFile(_ a: String, _ b: String) -> Bool {
        var first = stat(), second = stat()
        if stat(a, &first) == 0 && stat(b, &second) == 0 {
            return first.st_dev == second.st_dev && first.st_ino == second.st_ino
        }
        return URL(fileURLWithPath: a).standardizedFileURL == URL(fileURLWithPath: b).standardizedFileURL
    }

    /// A database file with its -wal, -shm and -journal.
    private static func removeDatabaseFiles(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }

    /// Renames within a directory (atomic), then syncs the directory so the
    /// new name survives a power cut.
    private static func moveFile(_ from: String, to: String) throws {
        guard rename(from, to) == 0 else { throw BackupError.cannotWrite(to, String(cString: strerror(errno))) }
        let directory = (to as NSString).deletingLastPathComponent
        try syncFile(directory.isEmpty ? "." : directory)
    }

    private static func syncFile(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw BackupError.cannotWrite(path, String(cString: strerror(errno))) }
        defer { Glibc.close(descriptor) }  // not SenseiStore.close
        guard fsync(descriptor) == 0 else { throw BackupError.cannotWrite(path, String(cString: strerror(errno))) }
    }

    private static func unusedName(_ base: String) -> String {
        var candidate = base
        var counter = 2
        while FileManager.default.fileExists(atPath: candidate) {
            candidate = "\(base)-\(counter)"
            counter += 1
        }
        return candidate
    }

    /// `20250109T120000Z`: UTC, sortable, and no colons in a file name.
    static func fileStamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: date)
    }
}

public enum BackupError: Error, Equatable, CustomStringConvertible {
    case noDatabase(String)
    case noBackup(String)
    case noDirectory(String)
    case destinationExists(String)
    case sameFile(String)
    case notSensei(String, String)
    case damaged(String, String)
    case cannotWrite(String, String)

    public var description: String {
        switch self {
        case .noDatabase(let path): "no database at \(path): is --data-dir right?"
        case .noBackup(let path): "no file at \(path)"
        case .noDirectory(let path): "no directory \(path)"
        case .destinationExists(let path): "\(path) exists: give --force to replace it"
        case .sameFile(let path): "\(path) is the live database itself"
        case .notSensei(let path, let reason): "\(path) is not a Sensei database: \(reason)"
        case .damaged(let path, let report): "\(path) failed its integrity check: \(report)"
        case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
        }
    }
}
