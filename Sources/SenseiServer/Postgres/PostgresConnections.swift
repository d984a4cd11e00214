import Dispatch
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// A fixed number of connections to PostgreSQL, lent one at a time to a
/// caller that may block: an HTTP worker answering a read, the writer thread
/// committing a group, a maintenance pass.
///
/// Why not postgres-nio's `PostgresClient`: the store's callers are threads
/// (libmicrohttpd's workers, the writer), not tasks, and its seams are
/// synchronous like GRDB's. Waiting on a connection's `EventLoopFuture` keeps
/// the whole round trip on NIO's event loops; bridging to the async client
/// would park each waiting thread on the two-thread cooperative pool. A
/// connection that breaks (a restarted or failed-over server) is dropped and
/// a new one made on next use, so a node rides out a failover.
final class PostgresConnections: Sendable {
    let url: DatabaseURL
    private let configuration: PostgresConnection.Configuration
    private let logger: Logger
    private let group: any EventLoopGroup
    /// One permit a connection that may be open at once.
    private let permits: DispatchSemaphore
    private let idle = Mutex<[PostgresConnection]>([])
    private let nextID = Atomic<Int>(1)
    private let closed = Atomic<Bool>(false)

    init(url: DatabaseURL, size: Int, logger: Logger) throws {
        self.url = url
        configuration = try url.connectionConfiguration()
        self.logger = logger
        group = MultiThreadedEventLoopGroup.singleton
        permits = DispatchSemaphore(value: size)
    }

    /// Runs `body` with a connection of its own; waits for one while all are lent.
    func withSession<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        guard !closed.load(ordering: .acquiring) else { throw PostgresStoreError.closed }
        permits.wait()
        defer { permits.signal() }
        // A connection the server closed while it was idle (a restart, a
        // failover, pg_terminate_backend) is dropped here, not used.
        var reused: PostgresConnection?
        while reused == nil, let connection = idle.withLock({ $0.popLast() }) {
            if connection.isClosed { Self.discard(connection) } else { reused = connection }
        }
        let connection = try reused ?? connect()
        defer {
            if connection.isClosed || closed.load(ordering: .acquiring) {
                Self.discard(connection)
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
        for connection in connections {
            let closing: EventLoopFuture<Void> = connection.close()
            try? closing.wait()
        }
    }

    /// Closes `connection` without waiting, and keeps it alive until it is
    /// closed (postgres-nio asserts a connection is closed before it goes).
    static func discard(_ connection: PostgresConnection) {
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    /// A new connection, outside the pool (`PostgresNodeLink` keeps one).
    func connect() throws -> PostgresConnection {
        let id = nextID.add(1, ordering: .relaxed).oldValue
        do {
            return try PostgresConnection.connect(on: group.next(), configuration: configuration, id: id,
                                                  logger: logger).wait()
        } catch {
            throw PostgresStoreError.unavailable(url: url.description, reason: PostgresSession.describe(error))
        }
    }
}

/// One lent connection: runs statements and waits for them.
struct PostgresSession {
    let connection: PostgresConnection
    let logger: Logger

    /// Every row `query` returns.
    @discardableResult
    func rows(_ query: PostgresQuery) throws -> [PostgresRow] {
        try run { try wait(connection.query(query, logger: logger)).rows }
    }

    /// The first row, if any.
    func row(_ query: PostgresQuery) throws -> PostgresRow? {
        try rows(query).first
    }

    /// Runs `query`; the number of rows it inserted, updated or deleted.
    @discardableResult
    func execute(_ query: PostgresQuery) throws -> Int {
        try run { try wait(connection.query(query, logger: logger)).metadata.rows ?? 0 }
    }

    /// Several statements in one round trip (the simple query protocol): the
    /// schema, BEGIN/COMMIT. No parameters.
    func script(_ sql: String) throws {
        try run { _ = try wait(connection.simpleQuery(sql)) }
    }

    /// `body` between `begin` and COMMIT (ROLLBACK when it throws).
    func transaction<T>(begin: String = "BEGIN", _ body: () throws -> T) throws -> T {
        try script(begin)
        do {
            let result = try body()
            try script("COMMIT")
            return result
        } catch {
            // A broken connection has no transaction left to end.
            if !connection.isClosed { try? script("ROLLBACK") }
            throw error
        }
    }

    /// Longest a statement's answer is waited for: only a connection gone
    /// without a word (a network cut) waits this long.
    static let answerTimeout: TimeAmount = .seconds(60)

    /// `future`'s result, or `unavailable` when the connection is closed or
    /// silent. postgres-nio drops a statement written to a channel that has
    /// just closed, and its future then never completes
    /// (`PostgresConnection.queryStream` writes with `promise: nil`): the
    /// closed check makes that race narrow, the timer bounds it.
    private func wait<T: Sendable>(_ future: EventLoopFuture<T>) throws -> T {
        let unavailable = PostgresStoreError.unavailable(url: "PostgreSQL", reason: "the connection is closed")
        guard !connection.isClosed else { throw unavailable }
        let answer = future.eventLoop.makePromise(of: T.self)
        future.cascade(to: answer)
        let connection = connection
        let timer = future.eventLoop.scheduleTask(in: Self.answerTimeout) {
            answer.fail(PostgresStoreError.unavailable(url: "PostgreSQL", reason: "no answer within 60 s"))
            PostgresConnections.discard(connection)
        }
        defer { timer.cancel() }
        return try answer.futureResult.wait()
    }

    /// Turns a lost connection into `unavailable` (the routes answer 503
    /// with Retry-After); a statement's own error stays as it is.
    private func run<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PSQLError where error.serverInfo == nil || error.isTransient {
            throw PostgresStoreError.unavailable(url: "PostgreSQL", reason: Self.describe(error))
        } catch let error as PostgresError where error.isTransient {
            // The older query API (`simpleQuery`) says so in its own words.
            throw PostgresStoreError.unavailable(url: "PostgreSQL", reason: "\(error)")
        }
    }

    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] { return message }
        return "\(error.code)" + (error.underlying.map { ": \($0)" } ?? "")
    }
}

extension PSQLError {
    /// The SQLSTATE the server answered with, e.g. "23505" (unique violation).
    var sqlState: String? { serverInfo?[.sqlState] }

    /// An answer that says "not now" rather than "not this": the connection
    /// failed (class 08), the server is shutting down or starting (57P01–03),
    /// it is a standby after a failover (25006 read-only), or the
    /// transaction lost a deadlock or a serialization race (40001, 40P01).
    /// The client's retry will do.
    var isTransient: Bool { sqlState.map(PostgresError.isTransient) ?? false }
}

extension PostgresError {
    /// `PSQLError.isTransient`, for the errors of the older query API.
    var isTransient: Bool {
        switch self {
        case .connectionClosed: true
        case .server(let message): message.fields[.sqlState].map(Self.isTransient) ?? false
        case .protocol: false
        }
    }

    static func isTransient(_ sqlState: String) -> Bool {
        sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03", "25006", "40001", "40P01"].contains(sqlState)
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
