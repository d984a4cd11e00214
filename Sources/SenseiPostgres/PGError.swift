import CLibPQ

/// Everything this client throws: the server's answer to a statement (with
/// its SQLSTATE), a connection that could not be made or was lost, a wait
/// that passed its deadline, a value that does not decode as asked.
public struct PGError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The connection string does not parse (a malformed URL, an
        /// unknown parameter): retrying cannot help. A bad value of a known
        /// parameter (`sslmode=sometimes`) is found when connecting: `.connect`.
        case invalidConnectionString
        /// No connection could be made (refused, unreachable, authentication).
        case connect
        /// The server answered the statement with an error (`sqlState`).
        case server
        /// The connection broke, or the server closed it.
        case connectionLost
        /// No answer before the connection's `answerTimeout`; the connection
        /// is then broken, since its protocol state is unknown.
        case timeout
        /// A statement earlier in the same pipeline failed, so PostgreSQL
        /// skipped this one.
        case pipelineAborted
        /// A column's value is not of the type asked for, or NULL for a non-optional.
        case decode
        /// The client was used wrongly (a closed connection, COPY rows of the wrong format).
        case usage
    }

    public var kind: Kind
    /// The five-character SQLSTATE the server answered with, e.g. "23505".
    public var sqlState: String?
    public var message: String
    public var detail: String?
    public var hint: String?
    /// The connection was unusable when this error was seen: whatever the
    /// SQLSTATE says, a new connection is the way on.
    public var connectionBroken: Bool

    public init(_ kind: Kind, sqlState: String? = nil, message: String, detail: String? = nil,
                hint: String? = nil, connectionBroken: Bool = false) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.hint = hint
        self.connectionBroken = connectionBroken
    }

    /// An answer that says "not now" rather than "not this": the connection
    /// failed or could not be made (class 08, or lost on our side), the
    /// server is shutting down or starting (57P01–03), it is a standby after
    /// a failover (25006, read-only), or the transaction lost a deadlock or
    /// a serialization race (40001, 40P01). The same statement, retried (on
    /// a new connection if this one is broken), may well succeed.
    ///
    /// Except 08P01 on a connection that still works: "protocol violation"
    /// is how the server rejects malformed binary data (a binary COPY value
    /// of the wrong type), which no retry mends.
    public var isTransient: Bool {
        if connectionBroken { return true }
        switch kind {
        case .connect, .connectionLost, .timeout: return true
        case .server, .pipelineAborted: return sqlState.map(Self.isTransient(sqlState:)) ?? false
        case .invalidConnectionString, .decode, .usage: return false
        }
    }

    public static func isTransient(sqlState: String) -> Bool {
        (sqlState.hasPrefix("08") && sqlState != "08P01")
            || ["57P01", "57P02", "57P03", "25006", "40001", "40P01"].contains(sqlState)
    }

    public var description: String {
        var text = message
        if let sqlState { text += " (SQLSTATE \(sqlState))" }
        if let detail { text += "; detail: \(detail)" }
        if let hint { text += "; hint: \(hint)" }
        return text
    }

    /// The error of a failed result, or of the connection when the result is
    /// NULL (libpq could not even build one: out of memory, or the
    /// connection went away).
    init(result: OpaquePointer?, connection: OpaquePointer) {
        let broken = PQstatus(connection) != CONNECTION_OK
        func field(_ code: Character) -> String? {
            guard let result, let value = PQresultErrorField(result, Int32(code.asciiValue!)) else { return nil }
            return String(cString: value)
        }
        let sqlState = field("C")
        let message = field("M") ?? Self.trimmed(result.flatMap { PQresultErrorMessage($0) } ?? PQerrorMessage(connection))
        self.init(sqlState == nil ? .connectionLost : .server, sqlState: sqlState,
                  message: message.isEmpty ? "the connection to the server was lost" : message,
                  detail: field("D"), hint: field("H"), connectionBroken: broken)
    }

    /// The connection's own last error (libpq's message), as `kind`.
    static func connection(_ kind: Kind, _ connection: OpaquePointer?) -> PGError {
        let message = connection.map { trimmed(PQerrorMessage($0)) } ?? ""
        return PGError(kind, message: message.isEmpty ? "the connection to the server was lost" : message,
                       connectionBroken: kind == .connectionLost || kind == .timeout)
    }

    /// libpq's messages end in a newline, and may hold several lines.
    static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
        guard let message else { return "" }
        return String(cString: message).split(separator: "\n").map { $0.trimmingPrefixSpaces() }
            .joined(separator: "; ")
    }
}

extension Substring {
    fileprivate func trimmingPrefixSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" })
    }
}
