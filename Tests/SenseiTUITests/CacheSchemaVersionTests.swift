import Foundation
import GRDB
import SenseiModels
import Testing
@testable import SenseiTUI
@testable import SenseiClient

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
                    """ + String(CacheSchema.sql[rest.lowerBound...])
                        // Step 5 makes the usage table: no earlier file has it.
                        .replacingOccurrences(of: CacheSchema.usageReportsTable, with: ""))
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

    /// Version 5 to 6 (energy): sensors get their kind, gauge until the next
    /// sync says otherwise, and usage reports are kept and read back.
    @Test func version5GetsKindsAndUsageReports() async throws {
        try await withScratch { scratch in
            let file = try DatabaseQueue(path: scratch.cachePath)
            try file.writeWithoutTransaction { db in
                // What a version 5 file held: today's tables without the usage
                // table and the sensors' kind.
                try db.execute(sql: CacheSchema.sql
                    .replacingOccurrences(of: CacheSchema.usageReportsTable, with: "")
                    .replacingOccurrences(of: ",\n    -- gauge or counter (SensorKind), as the server says\n    kind TEXT NOT NULL DEFAULT 'gauge'", with: ""))
                try db.execute(sql: """
                    INSERT INTO sensors (id, code, name, units, value_type, created_at, updated_at, count, position)
                    VALUES (7, 'meter', 'Meter', 'kWh', 'float', 0, 0, 0, 0);
                    PRAGMA user_version = 5;
                    """)
            }
            try file.close()
            let cache = try scratch.openCache()
            #expect(cache.upgradeNote == "cache upgraded from version 5 to 6 in place; nothing cached was lost")
            var meter = try #require(try cache.sensor(id: 7))
            #expect(meter.kind == .gauge)
            meter.kind = .counter
            try cache.mergeSensors([meter])
            #expect(try cache.sensor(id: 7)?.kind == .counter)
            let report = UsageReport(sensor: "meter", interval: .day, timeZone: "UTC", units: "kWh", usage: [
                UsageBucket(start: Timestamp(milliseconds: 0), value: 1.25, count: 3, complete: true),
            ])
            let usage = CachedUsage(report: report, fetchedAt: Timestamp(milliseconds: 5))
            try cache.saveUsage(usage, sensorId: 7, range: .week, zone: "UTC")
            #expect(try cache.cachedUsage(sensorId: 7, range: .week, zone: "UTC") == usage)
            #expect(try cache.cachedUsage(sensorId: 7, range: .week, zone: "Europe/Berlin") == nil)
            // The sensor's going takes its reports with it.
            try cache.removeSensor(id: 7)
            try cache.pool.read { db throws in
                #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM usage_reports") == 0)
            }
            try cache.close()
        }
    }
}
