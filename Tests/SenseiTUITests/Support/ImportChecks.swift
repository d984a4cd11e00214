import Foundation
import SenseiModels
import SenseiTestSupport
@testable import SenseiTUI
@testable import SenseiClient

/// A point as the import tests compare them: its series as InfluxDB names
/// it (measurement, tags, field) or a sensor code, its millisecond, its value.
struct SeriesKey: Hashable, Comparable, CustomStringConvertible {
    var measurement: String
    var tags: [String: String]
    var field: String

    static func < (a: SeriesKey, b: SeriesKey) -> Bool { a.description < b.description }

    var description: String {
        ([measurement] + tags.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: ",")
            + " " + field
    }
}

struct PointKey: Hashable {
    var series: SeriesKey
    var milliseconds: Int64
}

enum ImportChecks {
    static func client(_ server: TestServer, token: String? = nil) -> APIClient {
        APIClient(baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, token: token ?? server.adminToken, timeout: 60)
    }

    /// Every reading on the server by its series, read through the bulk
    /// route the way `sensei export` reads: a sensor with a `measurement`
    /// label is that measurement, field and tags, any other its code and `value`.
    static func readings(of server: TestServer) async throws -> [PointKey: Double] {
        let client = client(server)
        let sensors = Dictionary(uniqueKeysWithValues: try await client.sensors().map { ($0.id, $0) })
        var points: [PointKey: Double] = [:]
        var cursor: String?
        repeat {
            let page = try await client.bulkReadings(after: nil, limit: 100_000, cursor: cursor)
            for (id, readings) in page.series {
                let series = seriesKey(of: sensors[id]!)
                for reading in readings {
                    let key = PointKey(series: series, milliseconds: reading.timestamp.milliseconds)
                    precondition(points[key] == nil, "\(key) twice")
                    points[key] = reading.value
                }
            }
            cursor = page.next
        } while cursor != nil
        return points
    }

    static func seriesKey(of sensor: Sensor) -> SeriesKey {
        var labels = sensor.labels
        labels["source"] = nil
        let measurement = labels.removeValue(forKey: "measurement") ?? sensor.code
        let field = labels.removeValue(forKey: "field") ?? "value"
        return SeriesKey(measurement: measurement, tags: labels, field: field)
    }

    /// The differences between two sets of points, a few named.
    static func differences(_ expected: [PointKey: Double], _ actual: [PointKey: Double]) -> [String] {
        var out: [String] = []
        for (key, value) in expected where actual[key] != value {
            out.append("\(key.series) @\(key.milliseconds): expected \(value), got \(actual[key].map { "\($0)" } ?? "nothing")")
            if out.count >= 5 { break }
        }
        for (key, value) in actual where expected[key] == nil {
            out.append("\(key.series) @\(key.milliseconds): unexpected \(value)")
            if out.count >= 10 { break }
        }
        return out
    }
}
