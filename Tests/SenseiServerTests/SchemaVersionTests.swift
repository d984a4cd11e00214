import GRDB
import SenseiTestSupport
import Testing
import SenseiModels
@testable import SenseiServer

/// A database left by a server of any earlier schema version opens and ends
/// at the current one, its data and tokens kept, shaped as a new one.
@Suite("Schema versions")
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

    /// Step 9 (alert rules on usage) rebuilds `alert_rules` to widen its
    /// CHECK: the rules, their ids and the id sequence stay, and the table
    /// ends as schema.sql makes it. Steps 7 and 8 (the sensors' kind, the
    /// usage summaries) leave `alert_rules` alone, so a version-7 file
    /// marked 9 stands in for one they ran on until their branches merge.
    @Test func step9AddsTheUsageCalendarToAlertRules() async throws {
        try await withTemporaryDirectory { directory in try Self.checkStep9(at: directory + "/v9.sqlite") }
    }

    /// Synchronous, so GRDB's blocking calls are the ones used.
    private static func checkStep9(at path: String) throws {
        do {
            try SchemaMigrationTests.makeVersion1(at: path)
            let queue = try DatabaseQueue(path: path)
            try queue.writeWithoutTransaction { db in try SenseiStore.migrator.upgrade(db, from: 1, to: 7) }
            try queue.write { db in
                try db.execute(sql: """
                    INSERT INTO alert_rules (name, sensor_id, condition, threshold, notify, since, created_at)
                    VALUES ('Warm', 1, 'above', 25, '["http://h/x"]', 1, 1), ('Gone', 2, 'silent', NULL, '["http://h/y"]', 1, 1);
                    DELETE FROM alert_rules WHERE name = 'Gone';
                    PRAGMA user_version = 9;
                    """)
            }
            try queue.writeWithoutTransaction { db in try SenseiStore.migrator.upgrade(db, from: 9) }
            let fresh = try DatabaseQueue()
            try fresh.write { db in try db.execute(sql: SenseiStore.schemaSQL) }
            let columns = "SELECT name || ' ' || type || ' ' || \"notnull\" || ' ' || ifnull(dflt_value, '-') FROM pragma_table_xinfo('alert_rules')"
            #expect(try queue.read { db in try String.fetchAll(db, sql: columns) }
                    == fresh.read { db in try String.fetchAll(db, sql: columns) })
            try queue.write { db in
                #expect(try Int.fetchOne(db, sql: "PRAGMA user_version") == 10)
                #expect(try Row.fetchAll(db, sql: "SELECT id, name, condition, interval, tz FROM alert_rules")
                        == [["id": 1, "name": "Warm", "condition": "above", "interval": nil, "tz": nil] as Row])
                #expect(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE tbl_name = 'alert_rules' AND type = 'index'")
                        == ["alert_rules_by_sensor"])
                try db.execute(sql: """
                    INSERT INTO alert_rules (name, sensor_id, condition, threshold, notify, since, created_at, interval, tz)
                    VALUES ('Heat pump', 1, 'usage_above', 30, '["http://h/x"]', 1, 1, 'day', 'Europe/Berlin')
                    """)
                // The deleted rule's id is not handed out again.
                #expect(db.lastInsertedRowID == 3)
                #expect(throws: (any Error).self) {
                    try db.execute(sql: """
                        INSERT INTO alert_rules (name, sensor_id, condition, notify, since, created_at, interval)
                        VALUES ('x', 1, 'usage_above', '[]', 1, 1, 'year')
                        """)
                }
            }
            try queue.close()
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
