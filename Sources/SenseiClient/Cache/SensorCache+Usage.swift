import GRDB
import SenseiModels

/// A usage report as last fetched for a range and zone; `report` nil: the
/// server answered that it has no usage route (a server older than v1.2).
public struct CachedUsage: Hashable, Sendable {
    public var report: UsageReport?
    public var fetchedAt: Timestamp

    public init(report: UsageReport?, fetchedAt: Timestamp) {
        self.report = report
        self.fetchedAt = fetchedAt
    }
}

extension SensorCache {
    /// Keeps the server's answer for the sensor, range and zone, replacing the last.
    public func saveUsage(_ usage: CachedUsage, sensorId: Int64, range: TimeRange, zone: String) throws {
        let json = usage.report.map { report in
            var writer = JSONWriter()
            report.write(to: &writer)
            return writer.string
        }
        try pool.write { db in
            try db.execute(sql: """
                INSERT OR REPLACE INTO usage_reports (sensor_id, range, tz, fetched_at, report) VALUES (?, ?, ?, ?, ?)
                """, arguments: [sensorId, range.rawValue, zone, usage.fetchedAt.milliseconds, json])
        }
    }

    /// The oldest reading or rollup kept of the sensor: where all-time usage starts.
    public func oldestKept(sensorId: Int64) throws -> Timestamp? {
        try pool.read { db in try Self.oldestKept(sensorId: sensorId, in: db) }
    }

    /// What `saveUsage` kept, or nil (never fetched, or a row no longer readable:
    /// it is only a cache).
    public func cachedUsage(sensorId: Int64, range: TimeRange, zone: String) throws -> CachedUsage? {
        let row = try pool.read { db in
            try Row.fetchOne(db, sql: """
                SELECT fetched_at, report FROM usage_reports WHERE sensor_id = ? AND range = ? AND tz = ?
                """, arguments: [sensorId, range.rawValue, zone])
        }
        guard let row else { return nil }
        let fetchedAt = Timestamp(milliseconds: row["fetched_at"])
        guard let text: String = row["report"] else { return CachedUsage(report: nil, fetchedAt: fetchedAt) }
        guard let json = try? JSONParser.parse(Array(text.utf8)), let report = try? UsageReport(json: json) else {
            return nil
        }
        return CachedUsage(report: report, fetchedAt: fetchedAt)
    }
}
