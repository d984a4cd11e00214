import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

/// `GET /sensors/<id>/usage` on the real server: a gauge's integral per
/// interval, across both 2025 daylight-saving changes, against a sum second by
/// second made here; the readings also sit in packed hours; bad parameters are
/// 400s naming them.
@Suite("Usage routes")
struct UsageRoutesTests {
    @Test(arguments: [("Europe/Berlin", "2025-03-29T00:00:00Z"), ("Europe/Berlin", "2025-10-25T00:00:00Z"),
                      ("America/New_York", "2025-03-08T00:00:00Z"), ("America/New_York", "2025-11-01T00:00:00Z")])
    func gaugeDaysAndHoursAcrossTheChange(zone: String, from: String) async throws {
        var random = SplitMix64(seed: UInt64(from.utf8.reduce(0) { $0 &* 31 &+ UInt64($1) }))
        let start = Timestamp(rfc3339: from)!.milliseconds
        // Three days of readings 10 s to 20 min apart (some gaps over maxGap).
        var points: [(time: Int64, value: Double)] = []
        var time = start
        while time < start + 3 * 86_400_000 {
            points.append((time, Double(Int.random(in: 0...3000, using: &random))))
            time += Int64.random(in: 10...1200, using: &random) * 1000
        }
        try await withTestServer { server in
            for chunk in stride(from: 0, to: points.count, by: 1000) {
                let items = points[chunk..<min(chunk + 1000, points.count)].map {
                    #"{"timestamp":"\#(Timestamp(milliseconds: $0.time).rfc3339)","value":\#($0.value)}"#
                }
                #expect(try server.writer.post("/sensors/plug/data", json: #"{"data":[\#(items.joined(separator: ","))]}"#).status == 201)
            }
            // Every hour old enough packed: usage reads blocks and rows alike.
            #expect(try server.compact(now: .now()).packedHours > 0)
            let rules = try TimeZoneRules.named(zone)
            for interval in ["day", "hour"] {
                let after = Timestamp(milliseconds: start + 86_400_000).rfc3339
                let before = Timestamp(milliseconds: start + 2 * 86_400_000).rfc3339
                let response = try server.reader.get(
                    "/sensors/plug/usage?interval=\(interval)&tz=\(zone)&after=\(after)&before=\(before)&maxGap=600")
                #expect(response.status == 200)
                let report = try UsageReport(json: response.json)
                #expect(report.units == "h" && report.timeZone == zone)
                // The intervals tile the local calendar: each starts where the last ended.
                let starts = report.usage.map(\.start.milliseconds)
                #expect(starts.first == UsageInterval(rawValue: interval)!.start(containing: start + 86_400_000, in: rules))
                for (index, bucket) in report.usage.enumerated() {
                    let end = index + 1 < starts.count ? starts[index + 1]
                        : UsageInterval(rawValue: interval)!.next(after: starts[index], in: rules)
                    let expected = Self.integral(points, from: starts[index], to: end, maxGap: 600_000)
                    #expect(abs(bucket.value - expected) < 1e-6 * max(1, expected), "\(zone) \(interval) #\(index)")
                    #expect(bucket.count == points.count { $0.time >= starts[index] && $0.time < end })
                    #expect(bucket.complete)
                }
            }
        }
    }

    @Test func badParametersAreNamed() async throws {
        try await withTestServer { server in
            _ = try server.writer.post("/sensors/plug/data", json: #"{"value":1}"#)
            for (query, words) in [("interval=fortnight", "interval"), ("tz=Mars/Base", "tz"), ("tz=../etc/passwd", "tz"),
                                   ("maxGap=0", "maxGap"), ("after=yesterday", "after"),
                                   ("interval=hour&after=2000-01-01T00:00:00Z", "hours")] {
                let response = try server.reader.get("/sensors/plug/usage?\(query)")
                #expect(response.status == 400, "\(query)")
                #expect(response.text.contains(words), "\(query): \(response.text)")
            }
            #expect(try server.reader.get("/sensors/nothing/usage").status == 404)
            // Defaults: 30 days of UTC, the last one running.
            let report = try UsageReport(json: server.reader.get("/sensors/plug/usage").json)
            #expect(report.usage.count == 30 && report.interval == .day && report.timeZone == "UTC")
            #expect(report.usage.last?.complete == false && report.usage.dropLast().allSatisfy(\.complete))
        }
    }

    /// The integral in value·hours, by the midpoint of each second, over the
    /// stretches between readings no longer than `maxGap`.
    static func integral(_ points: [(time: Int64, value: Double)], from: Int64, to: Int64, maxGap: Int64) -> Double {
        var total = 0.0
        var segment = 0
        var second = from
        while second < to {
            let middle = second + 500
            while segment + 1 < points.count, points[segment + 1].time <= middle { segment += 1 }
            if segment + 1 < points.count, points[segment].time <= middle {
                let (a, b) = (points[segment], points[segment + 1])
                if b.time - a.time <= maxGap {
                    total += (a.value + (b.value - a.value) * Double(middle - a.time) / Double(b.time - a.time)) / 3600
                }
            }
            second += 1000
        }
        return total
    }
}
