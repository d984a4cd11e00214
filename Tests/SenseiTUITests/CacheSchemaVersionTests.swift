import Foundation
import GRDB
import SenseiModels
import Testing
@testable import SenseiTUI

/// A cache file left by a dashboard of any earlier version opens at the
/// current one, keeping the user's order and the readings.
@Suite("Cache schema versions")
struct CacheSchemaVersionTests {
    @Test(arguments: 1..<CacheSchema.version)
    func everyEarlierVersionOpensAtTheCurrentOne(version: Int) async throws {
        try await withScratch { scratch in
            let file = try DatabaseQueue(path: scratch.cachePath)
            try file.writeWithoutTransaction { db in
                // Version 1: sensors without the columns the steps add.
                let rest = try #require(CacheSchema.sql.range(of: "CREATE INDEX sensors_code"))
                try db.execute(sql: """
                    CREATE TABLE sensors (
                        id INTEGER PRIMARY KEY, code TEXT NOT NULL, name TEXT NOT NULL, units TEXT NOT NULL,
                        value_type TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
                        latest_ts INTEGER, latest_value REAL, count INTEGER NOT NULL, position INTEGER NOT NULL
                    );
                    """ + String(CacheSchema.sql[rest.lowerBound...]))
                for (id, position) in [(1, 1), (2, 0)] {
                    try db.execute(sql: "INSERT INTO sensors VALUES (?, ?, ?, '', 'float', 0, 0, NULL, NULL, 0, ?)",
                                   arguments: [id, "s\(id)", "S\(id)", position])
                }
                try db.execute(sql: "INSERT INTO readings VALUES (1, 60000, 4), (1, 120000, 5)")
                try db.execute(sql: "PRAGMA user_version = 1")
                // Then the steps the dashboards between ran.
                try CacheSchema.migrator.upgrade(db, from: 1, to: version)
            }
            try file.close()

            let cache = try scratch.openCache()
            try cache.pool.read { db throws in
                #expect(try Int.fetchOne(db, sql: "PRAGMA user_version") == CacheSchema.version)
            }
            #expect(cache.upgradeNote
                    == "cache upgraded from version \(version) to \(CacheSchema.version) in place; nothing cached was lost")
            #expect(try cache.sensors().map(\.code) == ["s2", "s1"])
            #expect(try cache.readingCount(sensorId: 1) == 2)
            try cache.close()
        }
    }
}
