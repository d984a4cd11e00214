import Foundation
import GRDB
import SenseiModels
import SenseiTestSupport
import Testing
@testable import SenseiServer

/// Version 9 gives packed hours their usage summaries: a file of version 8
/// with hours packed as servers before it packed them opens with every
/// summary filled, equal to what packing the same readings computes now.
@Suite("Usage summary upgrade")
struct UsageSummaryUpgradeTests {
    @Test func packedHoursOfVersion8GetTheirSummaries() async throws {
        try await withTemporaryDirectory { directory in
            let old = directory + "/v8.sqlite"
            try SchemaMigrationTests.makeVersion1(at: old)
            let queue = try DatabaseQueue(path: old)
            try queue.writeWithoutTransaction { db in try SenseiStore.migrator.upgrade(db, from: 1, to: 8) }
            // Sensor 1's hours packed as a version 8 server packed them: the
            // block and its count, the rows and minute rollups gone.
            let readings = try queue.write { db in
                let rows = try Row.fetchAll(db, sql: "SELECT ts, value FROM readings WHERE sensor_id = 1 ORDER BY ts")
                let points = rows.map { (time: $0[0] as Int64, value: $0[1] as Double) }
                for hour in Set(points.map { RollupLevel.hour.start(of: $0.time) }).sorted() {
                    let inHour = points.filter { RollupLevel.hour.start(of: $0.time) == hour }
                    let data = ReadingBlock.encode(timestamps: inHour.map(\.time), values: inHour.map(\.value))
                    try db.execute(sql: "INSERT INTO reading_blocks (sensor_id, start, count, data) VALUES (1, ?, ?, ?)",
                                   arguments: [hour, inHour.count, Data(data)])
                    try db.execute(sql: "DELETE FROM readings WHERE sensor_id = 1 AND ts >= ? AND ts < ?",
                                   arguments: [hour, hour + 3_600_000])
                    try db.execute(sql: "DELETE FROM rollups_minute WHERE sensor_id = 1 AND start >= ? AND start < ?",
                                   arguments: [hour, hour + 3_600_000])
                }
                return points
            }
            #expect(try queue.read { db in try db.columns(in: "reading_blocks").map(\.name) }
                    == ["sensor_id", "start", "count", "data"])
            try queue.close()

            // The same readings written to a new file and packed now.
            let fresh = try SenseiStore(path: directory + "/new.sqlite")
            try fresh.insertReadings(readings.map { ReadingInput(timestamp: Timestamp(milliseconds: $0.time), value: $0.value) },
                                     into: .code("temperature_ext"), createIfMissing: true)
            _ = try fresh.compact(now: .now())

            let upgraded = try SenseiStore(path: old)
            let summaries = { (store: SenseiStore, sensorID: Int64) in
                try store.pool.read { db in
                    try Row.fetchAll(db, sql: """
                        SELECT start, count, \(PackedHours.summaryColumns) FROM reading_blocks WHERE sensor_id = ? ORDER BY start
                        """, arguments: [sensorID])
                }
            }
            let filled = try summaries(upgraded, 1)
            #expect(filled.count == Set(readings.map { RollupLevel.hour.start(of: $0.time) }).count)
            #expect(filled.allSatisfy { $0["first_ts"] as Int64? != nil && $0["increase"] as Double? != nil })
            #expect(filled == (try summaries(fresh, 1)))
            #expect(try upgraded.integrityCheck() == "ok")

            // And the answers agree, gauge and counter alike.
            let rules = try TimeZoneRules.named("Europe/Berlin")
            let starts = UsageInterval.hour.starts(from: readings[0].time, to: readings[readings.count - 1].time, in: rules)
            let query = UsageQuery(interval: .hour, zone: rules, boundaries: starts + [UsageInterval.hour.next(after: starts.last!, in: rules)],
                                   maxGap: 900_000, now: .now())
            for kind in [SensorKind.gauge, .counter] {
                #expect(try upgraded.usage(of: .id(1), as: kind, query).usage == fresh.usage(of: .id(1), as: kind, query).usage)
            }
            try upgraded.close()
            try fresh.close()
        }
    }
}
