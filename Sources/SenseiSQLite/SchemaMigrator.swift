import GRDB

/// Versions a SQLite file with `PRAGMA user_version`: the one migrator of
/// the server's store and the dashboard's cache.
///
/// A new file gets the whole schema at once (`create`: for the server,
/// `schema.sql`, still the readable whole); an older one runs the steps
/// registered from its version on, each taking version `n` to `n + 1`, all
/// in one exclusive transaction that also sets the new version, so a failure
/// (a full disk, a crash) leaves the file as it was, at its old version.
///
/// Why not GRDB's `DatabaseMigrator`: it records what it applied in a table
/// of its own (`grdb_migrations`), keyed by names. The server's file is to
/// hold exactly what `schema.sql` makes (SchemaTests compares every object
/// in it), and `user_version` is what every earlier server and dashboard
/// wrote, what `backup`/`restore` check and what an older binary refuses a
/// newer file by. So the version stays that one number, and a step's
/// identifier is the version it upgrades from: step 1 is what the old
/// `[1: …]` migration was, and a file at `user_version` 3 runs steps 3, 4, …
/// up to `version`. What a caller does with a file newer than it knows
/// (the server refuses it, the cache rebuilds) stays the caller's.
public struct SchemaMigrator: Sendable {
    public typealias Step = @Sendable (Database) throws -> Void

    /// The version `create` makes and the steps end at.
    public let version: Int
    private let makeSchema: Step
    private var steps: [Int: Step] = [:]

    public init(version: Int, create: @escaping Step) {
        self.version = version
        makeSchema = create
    }

    /// Registers what takes a file of `version` to `version + 1`.
    public mutating func registerStep(from version: Int, _ step: @escaping Step) {
        precondition(version >= 1 && version < self.version && steps[version] == nil, "step \(version) registered twice or out of range")
        steps[version] = step
    }

    /// `registerStep` of plain SQL, which never changes once shipped.
    public mutating func registerStep(from version: Int, sql: String) {
        registerStep(from: version) { db in try db.execute(sql: sql) }
    }

    /// The file's `user_version`: 0 for a new (or foreign) file.
    public func foundVersion(in db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
    }

    /// Makes the schema in a new file (`create`, then the version).
    public func create(in db: Database) throws {
        try db.inTransaction(.exclusive) {
            try makeSchema(db)
            try setVersion(version, in: db)
            return .commit
        }
    }

    /// Runs the steps from `found` to `target` (`version`: a test may stop
    /// earlier, to make a file as an older program left it), then `finish`
    /// (work that needs the whole new schema), in one transaction.
    public func upgrade(_ db: Database, from found: Int, to target: Int? = nil, finish: Step = { _ in }) throws {
        let target = target ?? version
        try db.inTransaction(.exclusive) {
            for step in found..<target {
                guard let run = steps[step] else { throw SchemaMigratorError.noStep(from: step) }
                try run(db)
            }
            try finish(db)
            try setVersion(target, in: db)
            return .commit
        }
    }

    private func setVersion(_ version: Int, in db: Database) throws {
        try db.execute(sql: "PRAGMA user_version = \(version)")
    }
}

public enum SchemaMigratorError: Error, Equatable, CustomStringConvertible {
    /// No step registered from this version: not a file this program made.
    case noStep(from: Int)

    public var description: String {
        switch self {
        case .noStep(let version): "no upgrade from schema version \(version)"
        }
    }
}
