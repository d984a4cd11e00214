import GRDB
import GRDBSQLite

/// Runs a cached statement with its arguments bound straight through SQLite's
/// C API, for the paths that run once per reading, rollup row or write.
/// GRDB's `execute(arguments:)` and `Row.fetchOne` box every argument and
/// column and check the connection's state on every call: binding directly
/// took 40 % off the CPU time of a 1,000-reading insert, and reading a
/// sensor's id this way costs a tenth of a `Row`. The statement stays GRDB's,
/// which resets and rebinds it before any use of its own.
struct BoundStatement {
    private let handle: OpaquePointer
    private let statement: Statement

    init(_ statement: Statement) {
        self.statement = statement
        handle = statement.sqliteStatement
        // Binding needs a statement that is not mid-run, whoever ran it last.
        sqlite3_reset(handle)
    }

    func bind(_ index: Int32, _ value: Int64) {
        sqlite3_bind_int64(handle, index, value)
    }

    func bind(_ index: Int32, _ value: Int) {
        sqlite3_bind_int64(handle, index, Int64(value))
    }

    func bind(_ index: Int32, _ value: Double) {
        sqlite3_bind_double(handle, index, value)
    }

    func bindNull(_ index: Int32) {
        sqlite3_bind_null(handle, index)
    }

    func bind(_ index: Int32, _ value: String) {
        var value = value
        value.withUTF8 { text in
            // SQLITE_TRANSIENT: SQLite copies the bytes, which live only here.
            _ = sqlite3_bind_text(handle, index, text.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                                  Int32(text.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        }
    }

    /// Runs the statement to completion (it must return no rows) and resets
    /// it; returns the number of rows it inserted, updated or deleted.
    @discardableResult
    func run() throws -> Int {
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else { throw failure(code) }
        sqlite3_reset(handle)
        return Int(sqlite3_changes(sqlite3_db_handle(handle)))
    }

    /// Runs a query for at most one row: `read` sees its columns while the
    /// row is current. nil when there is no row.
    func first<T>(_ read: (Columns) throws -> T) throws -> T? {
        defer { sqlite3_reset(handle) }
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return try read(Columns(handle: handle))
        case SQLITE_DONE: return nil
        case let code: throw failure(code)
        }
    }

    /// Runs a query to its end: `read` sees each row's columns in turn.
    func forEachRow(_ read: (Columns) throws -> Void) throws {
        defer { sqlite3_reset(handle) }
        while true {
            switch sqlite3_step(handle) {
            case SQLITE_ROW: try read(Columns(handle: handle))
            case SQLITE_DONE: return
            case let code: throw failure(code)
            }
        }
    }

    /// Steps to the next row: its columns, or nil at the end (the statement
    /// is then reset). For walking two queries side by side; `reset` one
    /// left before its end.
    func step() throws -> Columns? {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return Columns(handle: handle)
        case SQLITE_DONE:
            sqlite3_reset(handle)
            return nil
        case let code: throw failure(code)
        }
    }

    func reset() {
        sqlite3_reset(handle)
    }

    /// The columns of the current row.
    struct Columns {
        fileprivate let handle: OpaquePointer

        func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

        func double(_ index: Int32) -> Double { sqlite3_column_double(handle, index) }

        /// nil for NULL.
        func optionalInt64(_ index: Int32) -> Int64? {
            sqlite3_column_type(handle, index) == SQLITE_NULL ? nil : sqlite3_column_int64(handle, index)
        }

        /// A blob's bytes, valid only until the row is stepped past.
        func blob(_ index: Int32) -> UnsafeBufferPointer<UInt8> {
            let count = Int(sqlite3_column_bytes(handle, index))
            guard count > 0, let pointer = sqlite3_column_blob(handle, index) else { return UnsafeBufferPointer(start: nil, count: 0) }
            return UnsafeBufferPointer(start: pointer.assumingMemoryBound(to: UInt8.self), count: count)
        }

        /// nil for NULL.
        func optionalInt(_ index: Int32) -> Int? {
            sqlite3_column_type(handle, index) == SQLITE_NULL ? nil : Int(sqlite3_column_int64(handle, index))
        }

        func text(_ index: Int32) -> String {
            guard let text = sqlite3_column_text(handle, index) else { return "" }
            return String(cString: text)
        }
    }

    private func failure(_ code: Int32) -> DatabaseError {
        let message = String(cString: sqlite3_errmsg(sqlite3_db_handle(handle)))
        sqlite3_reset(handle)
        return DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
    }
}
