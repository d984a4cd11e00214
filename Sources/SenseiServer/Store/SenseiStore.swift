import CSenseiSchema
import Foundation
import GRDB
import SenseiModels
import SenseiSQLite

/// The server's SQLite database: sensors, their readings and the API tokens.
///
/// It owns a WAL `DatabasePool` (readers never wait for the writer), applies
/// `schema.sql` to a new database and migrates an older one on open, and
/// funnels every reading write through a `GroupCommit` so that concurrent
/// requests share one transaction and one sync.
public final class SenseiStore: Sendable {
    /// The schema version `schema.sql` declares with `PRAGMA user_version`.
    public static let schemaVersion = 10

    /// schema.sql as compiled into the binary.
    public static var schemaSQL: String { String(cString: sensei_schema_sql()) }

    public let path: String
    let pool: DatabasePool
    let groupCommit: GroupCommit<SQLiteTransactions>
    let tokenLookup: TokenLookup
    /// Where receive-time readings may start, per sensor.
    let receiveTimeHints = ReceiveTimeHints()
    /// InfluxDB database names already in `influx_databases`.
    let knownInfluxDatabases = KnownNames()
    /// On while the live stream has listeners: writes then keep what they stored.
    public let tap = ReadingTap()

    /// The most sensors there may be: a write that would create more is
    /// refused (`StoreError.sensorLimit`, `SeriesIngestError.sensorLimit`).
    public let maxSensors: Int
    public static let defaultMaxSensors = 10_000

    /// Opens (creating if needed) the database at `path`.
    public init(path: String, maxSensors: Int = SenseiStore.defaultMaxSensors) throws {
        self.path = path
        self.maxSensors = maxSensors
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(10)
        configuration.label = "sensei"
        pool = try DatabasePool(path: path, configuration: configuration)
        // A 201 promises the readings survive a power cut: sync the WAL on every
        // commit. Set here, on the writer, because DatabasePool sets NORMAL
        // after any prepareDatabase hook has run.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        // Before the writer thread starts: a refused or failed open leaves no
        // thread behind holding the file.
        try Self.applySchema(to: pool)
        // The schema declares its foreign keys and the tests audit them
        // (`PRAGMA foreign_key_check`), but the writer does not check them row
        // by row: every row a write inserts belongs to a sensor the same
        // transaction found or created, and the check cost each reading a
        // seek into `sensors` (15 % of the writer's work on a batch of 1,000,
        // callgrind). `deleteSensor` does the cascade itself. Set outside any
        // transaction, as SQLite requires.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA foreign_keys = OFF") }
        groupCommit = GroupCommit(SQLiteTransactions(pool: pool))
        tokenLookup = try TokenLookup(path: path)
    }

    deinit {
        groupCommit.stop()
    }

    /// Makes a new file `schema.sql`'s, upgrades an older one in place
    /// (`SchemaMigrator`, one transaction), refuses a newer or a foreign one.
    private static func applySchema(to pool: DatabasePool) throws {
        try pool.barrierWriteWithoutTransaction { db in
            let version = try migrator.foundVersion(in: db)
            if version == 0 {
                let tables = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0
                guard tables == 0 else { throw StoreError.notASenseiDatabase }
                // Auto-vacuum is only set on an empty file (and, in WAL mode,
                // only takes by a VACUUM), so outside the schema's transaction.
                try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL")
                try db.execute(sql: "VACUUM")
                try migrator.create(in: db)
            } else if version > schemaVersion {
                throw StoreError.newerSchema(version)
            } else if version < schemaVersion {
                do {
                    try migrator.upgrade(db, from: version)
                } catch SchemaMigratorError.noStep {
                    throw StoreError.notASenseiDatabase
                }
            }
        }
    }

    /// Grows with every write this server commits (sensors and readings only
    /// change through it): responses built from the data can be reused while
    /// it stays the same.
    public var changeCount: UInt64 { groupCommit.commits.load(ordering: .acquiring) }

    /// Finishes queued writes, then closes every connection; later calls fail.
    public func close() throws {
        groupCommit.stop()
        // Everything into the database file and the WAL cut to nothing, even
        // if a connection outlives this one and SQLite keeps the file: a
        // stopped server's directory holds no copy of pages in its WAL.
        try? pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try tokenLookup.close()
        try pool.close()
    }

    /// `PRAGMA integrity_check`, "ok" when sound.
    public func integrityCheck() throws -> String {
        try pool.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? "" }
    }
}

/// What the store refuses, for the routes to turn into statuses.
public enum StoreError: Error, Equatable, CustomStringConvertible {
    case sensorNotFound(SensorReference)
    case codeTaken(String)
    case invalidValue(index: Int, reason: String)
    case tokenNameTaken(String)
    /// Creating a sensor would pass `--max-sensors` (the limit).
    case sensorLimit(Int)
    /// A label patch would leave a sensor this many labels.
    case tooManyLabels(Int)
    case notASenseiDatabase
    case newerSchema(Int)

    public var description: String {
        switch self {
        case .sensorNotFound(let reference): "no sensor '\(reference)'"
        case .codeTaken(let code): "a sensor with code '\(code)' already exists"
        case .invalidValue(let index, let reason): "data[\(index)].value: \(reason)"
        case .tokenNameTaken(let name): "a token named '\(name)' already exists"
        case .sensorLimit(let limit):
            "sensor limit reached: the server holds at most \(limit) sensors (--max-sensors); "
                + "delete sensors or raise the limit to create more"
        case .tooManyLabels(let count):
            "labels: a sensor may have at most \(SensorLabels.maximumCount) labels; this change leaves \(count)"
        case .notASenseiDatabase: "the database file holds tables but is not a Sensei database"
        case .newerSchema(let version):
            "the database has schema version \(version), newer than this server's \(SenseiStore.schemaVersion)"
        }
    }
}
