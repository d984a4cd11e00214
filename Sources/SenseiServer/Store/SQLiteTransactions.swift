import GRDB

/// The group commit's transactions on the SQLite file: the pool's writer
/// connection, BEGIN IMMEDIATE and COMMIT prepared once for the writer thread.
struct SQLiteTransactions: GroupTransactions {
    let pool: DatabasePool

    /// The write path's statements are prepared once for this thread, and
    /// let go before `stop` returns and the pool may close.
    func writerLoop(_ body: () -> Void) {
        WriterStatements.attached(body)
    }

    func transaction(_ body: (Database) throws -> Void) throws {
        try pool.writeWithoutTransaction { db in
            try Self.inTransaction(db) { try body(db) }
        }
    }

    func savepoint(in db: Database, _ body: () throws -> Void) throws {
        try db.inSavepoint {
            try body()
            return .commit
        }
    }

    /// `body` in a transaction whose BEGIN and COMMIT are prepared once:
    /// GRDB's `inTransaction` parses both again for every transaction.
    private static func inTransaction(_ db: Database, _ body: () throws -> Void) throws {
        try BoundStatement(db.writeStatement("BEGIN IMMEDIATE")).run()
        do {
            try body()
            try BoundStatement(db.writeStatement("COMMIT")).run()
        } catch {
            // A failed COMMIT may have ended the transaction already.
            if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
            throw error
        }
    }
}
