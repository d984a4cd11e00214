import CLibPQ

extension PGConnection {
    /// Runs `query` and returns its rows (all of them, in memory).
    ///
    /// The first run of a statement goes unnamed (PQsendQueryParams); from
    /// its second run on it is prepared once and executed by name, so a hot
    /// statement is parsed and planned once per connection.
    @discardableResult
    public func query(_ query: PGQuery) throws(PGError) -> PGResult {
        let handle = try openHandle()
        let deadline = answerDeadline
        let key = PGStatementCache.Key(query)
        var plan = statements.plan(for: key)
        if case .prepare(let name) = plan {
            try send(handle) { PQsendPrepare(handle, name, query.sql, Int32(key.types.count), key.types) }
            try flush(handle, until: deadline)
            _ = try collectResults(handle, until: deadline)
            statements.didPrepare(key, as: name)
            plan = .prepared(name)
        }
        try send(query, as: plan, handle)
        try flush(handle, until: deadline)
        do throws(PGError) {
            guard let result = try collectResults(handle, until: deadline).last else {
                throw PGError(.connectionLost, message: "no result from PostgreSQL", connectionBroken: true)
            }
            return result
        } catch {
            // The statement was deallocated behind the cache's back (DISCARD
            // ALL), or a table it reads changed its columns: prepare it anew
            // on its next run.
            if case .prepared = plan, error.sqlState == "26000" || error.sqlState == "0A000" {
                statements.forget(key)
            }
            throw error
        }
    }

    /// Runs `query`; the number of rows it inserted, updated or deleted.
    @discardableResult
    public func execute(_ query: PGQuery) throws(PGError) -> Int {
        try self.query(query).affectedRows
    }

    /// Several statements separated by semicolons, in one round trip and
    /// without parameters (the simple protocol, PQsendQuery): a schema,
    /// BEGIN, SET. Stops at the first error, as PostgreSQL does; without an
    /// explicit BEGIN they run in one implicit transaction. Results come in
    /// text format (`decode` reads them; `String` reads any type).
    @discardableResult
    public func script(_ sql: String) throws(PGError) -> [PGResult] {
        let handle = try openHandle()
        let deadline = answerDeadline
        try send(handle) { PQsendQuery(handle, sql) }
        try flush(handle, until: deadline)
        return try collectResults(handle, until: deadline)
    }

    /// `body` between BEGIN and COMMIT, or ROLLBACK when it throws.
    @discardableResult
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try script("BEGIN")
        let value: T
        do {
            value = try body()
        } catch {
            // A broken connection has no transaction left to end.
            if !isBroken { _ = try? script("ROLLBACK") }
            throw error
        }
        // COMMIT of a transaction in which a statement failed (and the body
        // caught the error) succeeds, but rolls back: its tag says so.
        if try script("COMMIT").last?.commandTag == "ROLLBACK" {
            throw PGError(.server, sqlState: "25P02",
                          message: "the transaction was rolled back: a statement in it failed")
        }
        return value
    }

    /// Sends `query` unnamed or as the prepared statement `plan` names,
    /// asking for every column in binary format.
    func send(_ query: PGQuery, as plan: PGStatementCache.Plan, _ handle: OpaquePointer) throws(PGError) {
        try send(handle) {
            query.binds.withLibPQArrays { values, lengths, formats, types in
                switch plan {
                case .prepared(let name):
                    PQsendQueryPrepared(handle, name, Int32(values.count), values, lengths, formats, 1)
                case .unnamed, .prepare:
                    PQsendQueryParams(handle, query.sql, Int32(values.count), types, values, lengths, formats, 1)
                }
            }
        }
    }

    /// Runs one of libpq's PQsend… calls, which return 1 when queued.
    func send(_ handle: OpaquePointer, _ call: () -> Int32) throws(PGError) {
        guard call() == 1 else {
            let broken = PQstatus(handle) != CONNECTION_OK
            throw PGError.connection(broken ? .connectionLost : .usage, handle)
        }
    }
}

/// The prepared statements of one connection, by SQL text and parameter
/// types. A statement is prepared on its second run, not its first, so SQL
/// built once (a VALUES list of one length) costs no extra round trip.
///
/// At most `capacity` are prepared; past that, statements run unnamed. The
/// hot ones of a server run early and often, so they are in; this bounds
/// the server's memory for a connection that sees endless distinct SQL.
struct PGStatementCache {
    struct Key: Hashable {
        let sql: String
        let types: [UInt32]

        init(_ query: PGQuery) {
            sql = query.sql
            types = query.binds.types
        }
    }

    enum Plan {
        case unnamed
        /// Prepare as this name, then execute it.
        case prepare(String)
        case prepared(String)
    }

    static let capacity = 256
    static let seenCapacity = 4096

    private var prepared: [Key: String] = [:]
    private var seen: Set<Key> = []
    private var nextNumber = 1

    var preparedCount: Int { prepared.count }

    mutating func plan(for key: Key) -> Plan {
        if let name = prepared[key] { return .prepared(name) }
        if seen.contains(key) && prepared.count < Self.capacity {
            defer { nextNumber += 1 }
            return .prepare("sensei_\(nextNumber)")
        }
        if seen.count >= Self.seenCapacity { seen.removeAll() }
        seen.insert(key)
        return .unnamed
    }

    mutating func didPrepare(_ key: Key, as name: String) {
        prepared[key] = name
        seen.remove(key)
    }

    mutating func forget(_ key: Key) {
        prepared[key] = nil
    }

    /// Whether `key` is prepared, for a pipeline that wants to prepare only once.
    func name(of key: Key) -> String? { prepared[key] }
}
