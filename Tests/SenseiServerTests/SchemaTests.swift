import Foundation
import GRDB
import Testing
import SenseiTestSupport
@testable import SenseiServer

@Suite("Schema", .sqliteOnly)
struct SchemaTests {
    static let rootSchemaPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("schema.sql").path

    @Test func compiledSchemaIsExactlyTheFileAtTheRoot() throws {
        let file = try String(contentsOfFile: Self.rootSchemaPath, encoding: .utf8)
        #expect(SenseiStore.schemaSQL == file)
        #expect(file.contains("PRAGMA user_version = \(SenseiStore.schemaVersion);"))
    }

    @Test func serverDatabaseHasTheSchemaOfTheFile() async throws {
        let file = try String(contentsOfFile: Self.rootSchemaPath, encoding: .utf8)
        let reference = try DatabaseQueue()
        try await reference.write { db in try db.execute(sql: file) }
        let expected = try await reference.read { db in try Self.schema(of: db) }

        try await withTestServer { server in
            let actual = try server.store.pool.read { db in try Self.schema(of: db) }
            #expect(actual == expected)
            #expect(actual.contains { $0.contains("WITHOUT ROWID") })
            let version = try server.store.pool.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") }
            #expect(version == SenseiStore.schemaVersion)
            let mode = try server.store.pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
            #expect(mode == "wal")
            let synchronous = try server.store.pool.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
            #expect(synchronous == 2)  // FULL
        }
    }

    @Test func reopeningKeepsDataAndDoesNotReapply() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/s.sqlite"
            let store = try SenseiStore(path: path)
            try store.insertReadings([.init(timestamp: .init(milliseconds: 5), value: 1)], into: .code("a"), createIfMissing: true)
            try store.close()
            let reopened = try SenseiStore(path: path)
            #expect(try reopened.sensors().map(\.count) == [1])
        }
    }

    @Test func refusesNewerAndForeignDatabases() async throws {
        try await withTemporaryDirectory { directory in
            let newer = try DatabaseQueue(path: directory + "/newer.sqlite")
            try newer.write { db in try db.execute(sql: "CREATE TABLE x (y); PRAGMA user_version = 99") }
            try newer.close()
            #expect(throws: StoreError.newerSchema(99)) { try SenseiStore(path: directory + "/newer.sqlite") }

            let foreign = try DatabaseQueue(path: directory + "/foreign.sqlite")
            try foreign.write { db in try db.execute(sql: "CREATE TABLE x (y)") }
            try foreign.close()
            #expect(throws: StoreError.notASenseiDatabase) { try SenseiStore(path: directory + "/foreign.sqlite") }
        }
    }

    private static func schema(of db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT type || ' ' || name || ': ' || ifnull(sql, '') FROM sqlite_master ORDER BY name")
    }
}
