import Dispatch
import Logging
import SenseiPostgres
import Synchronization

/// A fixed number of connections to PostgreSQL, lent one at a time to a
/// caller that may block: an HTTP worker answering a read, the writer thread
/// committing a group, a maintenance pass.
///
/// The connections are libpq's (`PGConnection`), whose calls block the
/// calling thread until the server answers: the store's callers are threads
/// (libmicrohttpd's workers, the writer), not tasks, and its seams are
/// synchronous like GRDB's, so a statement costs its round trip and nothing
/// more. A connection that breaks (a restarted or failed-over server) is
/// dropped and a new one made on next use, so a node rides out a failover.
final class PostgresConnections: Sendable {
    let url: DatabaseURL
    private let conninfo: String
    private let logger: Logger
    /// One permit a connection that may be open at once.
    private let permits: DispatchSemaphore
    private let idle = Mutex<[PGConnection]>([])
    private let closed = Atomic<Bool>(false)

    init(url: DatabaseURL, size: Int, logger: Logger) throws {
        self.url = url
        conninfo = url.conninfo
        self.logger = logger
        permits = DispatchSemaphore(value: size)
    }

    /// Runs `body` with a connection of its own; waits for one while all are lent.
    func withSession<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        guard !closed.load(ordering: .acquiring) else { throw PostgresStoreError.closed }
        permits.wait()
        defer { permits.signal() }
        // A connection the server closed while it was idle (a restart, a
        // failover, pg_terminate_backend) is dropped here, not used.
        var reused: PGConnection?
        while reused == nil, let connection = idle.withLock({ $0.popLast() }) {
            if connection.isBroken { connection.close() } else { reused = connection }
        }
        let connection = try reused ?? connect()
        defer {
            // A transaction left open (a ROLLBACK that failed) is not lent again.
            if connection.isBroken || connection.inTransaction || closed.load(ordering: .acquiring) {
                connection.close()
            } else {
                idle.withLock { $0.append(connection) }
            }
        }
        return try body(PostgresSession(connection: connection, logger: logger))
    }

    /// `body` in one transaction on one connection: committed when it returns,
    /// rolled back when it throws.
    func transaction<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        try withSession { session in try session.transaction { try body(session) } }
    }

    /// Closes every idle connection; later uses throw.
    func close() {
        closed.store(true, ordering: .releasing)
        let connections = idle.withLock { idle in
            defer { idle.removeAll() }
            return idle
        }
        for connection in connections { connection.close() }
    }

    /// A new connection, outside the pool (`PostgresNodeLink` keeps one).
    func connect() throws -> PGConnection {
        do {
            return try PGConnection(conninfo, connectTimeout: .seconds(10), answerTimeout: PostgresSession.answerTimeout)
        } catch {
            // libpq's reason alone: the URL is in the message already.
            var reason = PostgresSession.describe(error)
            if reason.hasPrefix("could not connect to "), let colon = reason.range(of: ": ") {
                reason = String(reason[colon.upperBound...])
            }
            throw PostgresStoreError.unavailable(url: url.description, reason: reason)
        }
    }
}

/// One lent connection: runs statements and waits for them.
///
/// A transaction's BEGIN, and what `sendWithCommit` queues, are held back
/// and sent with the next statement in one round trip (libpq's pipeline
/// mode): a group commit of common writes is two round trips (BEGIN with
/// its statement, the node event with COMMIT), not four.
struct PostgresSession {
    let connection: PGConnection
    let logger: Logger
    private let held = HeldStatements()

    init(connection: PGConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    /// Every row `query` returns.
    @discardableResult
    func rows(_ query: PGQuery) throws -> PGResult {
        try run { () throws(PGError) in
            guard held.isEmpty else { return try connection.pipeline(held.take() + [query]).last! }
            return try connection.query(query)
        }
    }

    /// The first row, if any.
    func row(_ query: PGQuery) throws -> PGRow? {
        try rows(query).first
    }

    /// Runs `query`; the number of rows it inserted, updated or deleted.
    @discardableResult
    func execute(_ query: PGQuery) throws -> Int {
        try rows(query).affectedRows
    }

    /// Several statements in one round trip (the simple query protocol): the
    /// schema, SAVEPOINT, LISTEN. No parameters. Held statements go first.
    func script(_ sql: String) throws {
        try run { () throws(PGError) in
            if !held.isEmpty { _ = try connection.pipeline(held.take()) }
            _ = try connection.script(sql)
        }
    }

    /// `body` between `begin` and COMMIT (ROLLBACK when it throws). The
    /// BEGIN goes with the body's first statement.
    func transaction<T>(begin: String = "BEGIN", _ body: () throws -> T) throws -> T {
        held.append(PGQuery(unsafeSQL: begin))
        do {
            let result = try body()
            try commit()
            return result
        } catch {
            // Never sent, or sent and failed.
            _ = held.take()
            // A broken connection has no transaction left to end.
            if !connection.isBroken && connection.inTransaction { try? script("ROLLBACK") }
            throw error
        }
    }

    /// Queues `query` to go with the transaction's COMMIT, in its round trip;
    /// if it fails, the transaction rolls back and `transaction` throws its error.
    func sendWithCommit(_ query: PGQuery) {
        held.append(query)
    }

    /// COMMIT, after what is held; a transaction in which a statement failed
    /// (its error caught) answers COMMIT by rolling back, which must not pass
    /// for a commit.
    private func commit() throws {
        let commit = try rows("COMMIT")
        if commit.commandTag == "ROLLBACK" {
            throw PGError(.server, sqlState: "25P02", message: "the transaction was rolled back: a statement in it failed")
        }
    }

    /// Longest a statement's answer is waited for: only a connection gone
    /// without a word (a network cut) waits this long.
    static let answerTimeout: Duration = .seconds(60)

    /// Turns a lost connection, or an answer that says "not now" (a server
    /// shutting down, a standby after a failover, a lost serialization race;
    /// `PGError.isTransient`), into `unavailable`: the routes answer 503 with
    /// Retry-After. A statement's own error (a unique violation, 23505)
    /// stays a `PGError` with its SQLSTATE.
    private func run<T>(_ body: () throws(PGError) -> T) throws -> T {
        do {
            return try body()
        } catch where error.isTransient {
            throw PostgresStoreError.unavailable(url: "PostgreSQL", reason: Self.describe(error))
        }
    }

    static func describe(_ error: any Error) -> String {
        guard let error = error as? PGError else { return "\(error)" }
        return error.sqlState.map { "\(error.message) (SQLSTATE \($0))" } ?? error.message
    }
}

/// A session's statements waiting to go with its next one. One caller at a
/// time, as the session's connection.
private final class HeldStatements: @unchecked Sendable {
    private var queries: [PGQuery] = []

    var isEmpty: Bool { queries.isEmpty }

    func append(_ query: PGQuery) {
        queries.append(query)
    }

    func take() -> [PGQuery] {
        defer { queries.removeAll() }
        return queries
    }
}

/// What the PostgreSQL store throws of its own.
public enum PostgresStoreError: Error, CustomStringConvertible {
    /// The database cannot be reached (down, failing over): try again later.
    case unavailable(url: String, reason: String)
    case closed
    case newerSchema(Int)
    case notASenseiDatabase
    /// A part of the store not written yet.
    case notYet(String)

    public var description: String {
        switch self {
        case .unavailable(let url, let reason): "the database \(url) is unavailable: \(reason)"
        case .closed: "the store is closed"
        case .newerSchema(let version):
            "the database has schema version \(version), newer than this server's \(PostgresStore.schemaVersion)"
        case .notASenseiDatabase: "the database holds tables but is not a Sensei database"
        case .notYet(let what): "\(what) is not yet implemented on PostgreSQL"
        }
    }
}
