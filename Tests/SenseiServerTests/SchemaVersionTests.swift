import GRDB
import SenseiTestSupport
import Testing
import SenseiModels
@testable import SenseiServer

/// A database left by a server of any earlier schema version opens and ends
/// at the current one, its data and tokens kept, shaped as a new one.
@Suite("Schema versions", .ownThread)
struct SchemaVersionTests {
    @Test(arguments: 1..<SenseiStore.schemaVersion)
    func everyEarlierVersionOpensAtTheCurrentOne(version: Int) async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/v\(version).sqlite"
            // The file a server of `version` left: version 1 as it shipped,
            // then the steps the servers between ran, as they ran them.
            try SchemaMigrationTests.makeVersion1(at: path)
            let queue = try DatabaseQueue(path: path)
            try queue.writeWithoutTransaction { db in try SenseiStore.migrator.upgrade(db, from: 1, to: version) }
            #expect(try queue.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") } == version)
            try queue.close()

            let store = try SenseiStore(path: path)
            let found = try store.pool.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") }
            #expect(found == SenseiStore.schemaVersion)
            #expect(try store.sensors().map(\.count) == [3_000, 3_000, 0])
            #expect(try store.token(digest: TokenSecret.digest(of: "sensei_device-secret"))?.scope == .write)
            #expect(try store.integrityCheck() == "ok")
            try store.close()

            try SenseiStore(path: directory + "/new.sqlite").close()
            #expect(try Self.columns(path) == Self.columns(directory + "/new.sqlite"))
        }
    }

    /// Every table's columns in order, with type, nullability and default.
    private static func columns(_ path: String) throws -> [String] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            try String.fetchAll(db, sql: """
                SELECT m.name || '.' || c.name || ' ' || c.type || ' ' || c."notnull" || ' ' || ifnull(c.dflt_value, '-')
                FROM sqlite_master m, pragma_table_xinfo(m.name) c
                WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' ORDER BY m.name, c.cid
                """)
        }
    }
}
