import GRDB

#if canImport(Glibc)
import Glibc
#endif

/// The statements every write runs (BEGIN and COMMIT, finding the sensor,
/// inserting the reading, updating the sensor), prepared once on the writer
/// thread and found by the address of their SQL text.
///
/// GRDB's `cachedStatement(sql:)` hashes and compares the whole text on every
/// call: 6,000 instructions of a single POST's 103,000 (callgrind), for five
/// statements, the longest of 300 characters. A `StaticString`'s address
/// names its text for the life of the process, so here a lookup is a short
/// scan of addresses.
///
/// The cache belongs to the writer thread (`GroupCommit`), which attaches it
/// when it starts and lets it go when it ends, before the pool closes (a
/// statement left unfinalized would keep the connection from closing). It
/// serves only the connection it first served: on any other thread or
/// connection, statements come from GRDB's cache as before.
final class WriterStatements {
    private var database: ObjectIdentifier?
    private var statements: [(address: UInt, statement: Statement)] = []

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Runs `body` with a cache attached to the current thread; the cache
    /// and its statements are let go when `body` returns.
    static func attached<Result>(_ body: () throws -> Result) rethrows -> Result {
        let cache = WriterStatements()
        pthread_setspecific(key, Unmanaged.passUnretained(cache).toOpaque())
        defer {
            pthread_setspecific(key, nil)
            withExtendedLifetime(cache) {}
        }
        return try body()
    }

    /// The current thread's cache, if it has one.
    fileprivate static var current: WriterStatements? {
        pthread_getspecific(key).map { Unmanaged<WriterStatements>.fromOpaque($0).takeUnretainedValue() }
    }

    fileprivate func statement(_ sql: StaticString, in db: Database) throws -> Statement? {
        let identity = ObjectIdentifier(db)
        if database == nil { database = identity }
        guard database == identity else { return nil }
        let address = UInt(bitPattern: sql.utf8Start)
        for entry in statements where entry.address == address { return entry.statement }
        let statement = try db.cachedStatement(sql: sql.description)
        statements.append((address, statement))
        return statement
    }
}

extension Database {
    /// A statement every write runs, prepared once: from the writer thread's
    /// cache (`WriterStatements`), else from GRDB's.
    func writeStatement(_ sql: StaticString) throws -> Statement {
        if let cache = WriterStatements.current, let statement = try cache.statement(sql, in: self) {
            return statement
        }
        return try cachedStatement(sql: sql.description)
    }
}
