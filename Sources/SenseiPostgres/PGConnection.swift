import CLibPQ

#if canImport(Glibc)
import Glibc
#endif

/// One connection to PostgreSQL through libpq. Its calls block the calling
/// thread until the server has answered, which suits Sensei's threads (HTTP
/// workers, the group-commit writer): no event loop, no hop between threads.
///
/// One thread at a time: a pool lends it to one caller, which may then run
/// anything on it; only `interrupt()` may be called from another thread
/// meanwhile. (`@unchecked Sendable` so a pool can hand it between threads.)
///
/// Every wait is bounded: `answerTimeout` for a statement's answer (a
/// silent network cut would otherwise hang the caller forever), the
/// connect timeout for connecting. A timed-out connection is broken: drop it.
public final class PGConnection: @unchecked Sendable {
    /// nil once closed.
    var handle: OpaquePointer?
    /// Longest wait for a statement's answer (and for sending it).
    public var answerTimeout: Duration
    /// Set when a wait passed its deadline or a pipeline failed halfway:
    /// the protocol state is unknown, so the connection is not used again.
    var abandoned = false
    /// Statements prepared on this connection, and those seen once.
    var statements = PGStatementCache()
    /// An eventfd that `interrupt()` writes to: `nextNotification` waits on
    /// it beside the socket.
    let wakeDescriptor: Int32

    /// Connects to `conninfo`: a URL (`postgresql://user:pw@host:5432/db?sslmode=require`,
    /// `postgresql:///db?host=/run/postgresql` for a Unix socket) or libpq's
    /// `key=value` form. The URL's own `connect_timeout` wins over
    /// `connectTimeout` (libpq counts whole seconds, at least 2, per host tried).
    ///
    /// TCP keepalives are on (probing after 30 s idle, dropping after 3
    /// unanswered probes 10 s apart), so an idle connection, such as one
    /// waiting for notifications, learns of a network cut within about a
    /// minute; the URL may set them otherwise.
    public init(_ conninfo: String, connectTimeout: Duration = .seconds(10),
                answerTimeout: Duration = .seconds(60)) throws(PGError) {
        self.answerTimeout = answerTimeout
        try Self.validate(conninfo)
        let timeout = max(2, Int((connectTimeout + .milliseconds(999)).components.seconds))
        // Later entries win in PQconnectdbParams: the defaults come first,
        // then the connection string (expanded, as `dbname`) overrides them.
        let settings = [
            ("connect_timeout", "\(timeout)"), ("keepalives", "1"), ("keepalives_idle", "30"),
            ("keepalives_interval", "10"), ("keepalives_count", "3"), ("dbname", conninfo),
        ]
        let connection = Self.withCStrings(settings.map(\.0)) { keywords in
            Self.withCStrings(settings.map(\.1)) { values in PQconnectdbParams(keywords, values, 1) }
        }
        guard let connection, PQstatus(connection) == CONNECTION_OK else {
            let reason = PGError.trimmed(connection.map { PQerrorMessage($0) })
            if let connection { PQfinish(connection) }
            throw PGError(.connect, message: "could not connect to \(Self.describe(conninfo)): \(reason)")
        }
        // libpq prints notices (NOTICE, WARNING, and the FATAL of a
        // terminated backend) on stderr by default; a library must not.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        // Nonblocking: a send never blocks, so every wait is ours, with a deadline.
        guard PQsetnonblocking(connection, 1) == 0 else {
            let error = PGError.connection(.connect, connection)
            PQfinish(connection)
            throw error
        }
        let wake = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wake >= 0 else {
            PQfinish(connection)
            throw PGError(.connect, message: "eventfd failed: errno \(errno)")
        }
        handle = connection
        wakeDescriptor = wake
    }

    deinit {
        if let handle { PQfinish(handle) }
        Glibc.close(wakeDescriptor)
    }

    /// Closes the connection (a Terminate message, then the socket); later
    /// calls throw a usage error. Safe to call twice.
    public func close() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    /// True when the connection cannot be used: closed, timed out, or lost.
    /// A server that closed an idle connection (a restart,
    /// `pg_terminate_backend`) shows here as soon as its goodbye has arrived:
    /// this reads what is waiting on the socket, without blocking.
    public var isBroken: Bool {
        guard let handle, !abandoned, PQstatus(handle) == CONNECTION_OK else { return true }
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        if poll(&descriptor, 1, 0) > 0 {
            // Fails, and marks the connection bad, on end of file.
            _ = PQconsumeInput(handle)
        }
        return PQstatus(handle) != CONNECTION_OK
    }

    /// The server's process for this connection (`pg_backend_pid()`).
    public var backendPID: Int32 { handle.map { PQbackendPID($0) } ?? 0 }

    /// The server's version as a number, e.g. 150004 for 15.4.
    public var serverVersion: Int { handle.map { Int(PQserverVersion($0)) } ?? 0 }

    /// How many statements this connection has prepared (see `query`).
    public var preparedStatementCount: Int { statements.preparedCount }

    /// Inside a transaction block (after BEGIN, before COMMIT or ROLLBACK).
    public var inTransaction: Bool {
        guard let handle else { return false }
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR
    }

    /// The open handle, or a usage error once closed.
    func openHandle() throws(PGError) -> OpaquePointer {
        guard let handle else { throw PGError(.usage, message: "the connection is closed") }
        guard !abandoned else {
            throw PGError(.connectionLost, message: "the connection failed earlier and is unusable", connectionBroken: true)
        }
        return handle
    }

    /// Rejects a string libpq cannot parse before trying to connect, so a
    /// typo is not reported (or retried) as a server that is down.
    private static func validate(_ conninfo: String) throws(PGError) {
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &message) else {
            let reason = message.map { PGError.trimmed($0) } ?? "out of memory"
            if let message { PQfreemem(message) }
            throw PGError(.invalidConnectionString, message: "invalid PostgreSQL connection string: \(reason)")
        }
        PQconninfoFree(options)
    }

    /// user@host:port/database, without the password, for messages.
    static func describe(_ conninfo: String) -> String {
        guard let options = PQconninfoParse(conninfo, nil) else { return "PostgreSQL" }
        defer { PQconninfoFree(options) }
        var values: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { values[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        let user = values["user"].map { $0 + "@" } ?? ""
        let host = values["host"] ?? values["hostaddr"] ?? "localhost"
        let port = values["port"].map { ":" + $0 } ?? ""
        let database = values["dbname"].map { "/" + $0 } ?? ""
        return "postgresql://\(user)\(host)\(port)\(database)"
    }

    static func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        return body(copies.map { UnsafePointer($0) } + [nil])
    }
}
