import Foundation
import GRDB
import Testing
@testable import SenseiServer

/// The writer thread's statement cache: one statement a text for the
/// connection it serves, GRDB's for any other, and nothing left to keep a
/// connection from closing once the thread lets it go.
@Suite("Writer statements")
struct WriterStatementsTests {
    @Test func theCacheServesItsOwnConnectionAndLetsGoOfItsStatements() throws {
        let served = try DatabaseQueue()
        let other = try DatabaseQueue()
        try served.write { try $0.execute(sql: "CREATE TABLE t (x INTEGER)") }
        try other.write { try $0.execute(sql: "CREATE TABLE t (x INTEGER)") }
        var cachedTwice = false
        var otherFromGRDB = false
        try served.writeWithoutTransaction { db in
            try WriterStatements.attached {
                let first = try db.writeStatement("INSERT INTO t VALUES (1)")
                db.clearSchemaCache()  // GRDB lets go of its own cached statements
                cachedTwice = try first === db.writeStatement("INSERT INTO t VALUES (1)")
                try BoundStatement(first).run()
                try other.writeWithoutTransaction { otherDB in
                    otherFromGRDB = try otherDB.writeStatement("INSERT INTO t VALUES (1)")
                        === otherDB.cachedStatement(sql: "INSERT INTO t VALUES (1)")
                }
            }
        }
        #expect(cachedTwice)
        #expect(otherFromGRDB)
        // Outside the thread's cache: GRDB's statement again.
        let outsideFromGRDB = try served.writeWithoutTransaction { db in
            try db.writeStatement("SELECT 1") === db.cachedStatement(sql: "SELECT 1")
        }
        #expect(outsideFromGRDB)
        // Each connection closes: no statement of the cache outlived it.
        try served.close()
        try other.close()
    }
}
