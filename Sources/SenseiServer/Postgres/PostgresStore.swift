import CSenseiSchema
import Dispatch
import Logging
import SenseiPostgres
import SenseiModels
import Synchronization

/// The server's data in PostgreSQL (`serve --database postgresql://…`): the
/// same seams as `SenseiStore` (`SensorStore`, `ReadingStore`, …), so nothing
/// above the store knows which one it has. Several nodes may share one
/// database; each keeps only caches here, bounded in age.
///
/// Its extensions, one seam each: `+Sensors`, `+Tokens`, `+Writes` (the
/// readings' write path and its group commit), `+Reads`, `+Rollups`,
/// `+Alerts`, `+Maintenance`. docs/postgresql.md says how it differs from
/// SQLite inside, and why.
public final class PostgresStore: Sendable {
    /// The version `schema-postgres.sql` inserts into `sensei_schema`.
    public static let schemaVersion = 2

    /// schema-postgres.sql as compiled into the binary.
    public static var schemaSQL: String { String(cString: sensei_schema_postgres_sql()) }

    public let url: DatabaseURL
    /// This node's name (`--node-id`), on the events it writes for the others.
    let node: String
    let connections: PostgresConnections
    let logger: Logger
    /// Always on here: another node's stream or alert evaluator may want
    /// what this node's writes stored (`PostgresTransactions.beforeCommit`).
    public let tap = ReadingTap()
    public let maxSensors: Int
    /// The writes of readings, grouped into one transaction each round
    /// (`+Writes`); also counts this node's commits (`changeCount`) and tells
    /// the observers of each.
    let groupCommit: GroupCommit<PostgresTransactions>
    /// Where receive-time readings may start, per sensor.
    let receiveTimeHints = ReceiveTimeHints()
    /// The sensors this node wrote to lately, for `PostgresWritesTogether`.
    let writeTargets = WriteTargets()
    let tokenCache = TokenCache()
    /// InfluxDB database names already in `influx_databases`.
    let knownInfluxDatabases = KnownNames()
    /// Stores the alert evaluator's changes one batch after another, off
    /// its caller (the writer thread, the evaluator's timer).
    let alertWrites = DispatchQueue(label: "sensei-alert-writes")

    /// Connects, and creates or checks the schema. `connections`: how many
    /// this node opens at most (PostgreSQL's own default limit is 100 for
    /// every node together).
    public init(url: DatabaseURL, node: String = "sensei", maxSensors: Int = SenseiStore.defaultMaxSensors,
                connections: Int = 8, logger: Logger) throws {
        self.url = url
        self.node = node
        self.maxSensors = maxSensors
        self.logger = logger
        self.connections = try PostgresConnections(url: url, size: connections, logger: logger)
        try PostgresSchema.apply(Self.schemaSQL, version: Self.schemaVersion, with: self.connections)
        groupCommit = GroupCommit(PostgresTransactions(connections: self.connections, node: node, hints: receiveTimeHints,
                                                         targets: writeTargets))
        tap.attach()
    }

    /// This node among the others on the database. What another node
    /// committed is told to this node's commit observers (the live stream,
    /// the alert evaluator) as a commit of no write of this node's.
    func nodeLink(node: String, logger: Logger) -> any NodeLink {
        let groupCommit = groupCommit
        return PostgresNodeLink(connections: connections, node: self.node, logger: logger) { stored in
            groupCommit.committed(writes: 0, stored: stored)
        }
    }

    deinit {
        groupCommit.stop()
    }

    /// New at every call: other nodes write the same database, and a cache
    /// keyed by this node's commits (the sensor list's) would serve their
    /// writes late. A read must see every acknowledged write, on any node.
    public var changeCount: UInt64 { reads.add(1, ordering: .relaxed).newValue }
    private let reads = Atomic<UInt64>(0)

    func observeCommits(_ observer: CommitObserver) {
        groupCommit.onCommit.withLock { $0.append(observer) }
    }

    /// Counts a committed write (for `changeCount`) and tells the observers
    /// what it stored.
    func committed(writes: Int, stored: [StoredReadings]) {
        groupCommit.committed(writes: writes, stored: stored)
    }

    /// A write outside the readings' path (metadata, tokens): one transaction.
    @discardableResult
    func write<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        let result = try connections.transaction(body)
        committed(writes: 1, stored: [])
        return result
    }

    /// A read on any connection, outside a transaction.
    @discardableResult
    func read<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        try connections.withSession(body)
    }
}
