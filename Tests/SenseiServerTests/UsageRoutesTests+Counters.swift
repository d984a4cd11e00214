import Foundation
import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

/// A counter's usage on the real server: readings with restarts, gaps and
/// irregular times, by hour, day, week and month, across both 2025
/// daylight-saving changes in Berlin and New York, from rows, then half
/// packed, then all packed; each interval checked against an increase and a
/// calendar computed here (Foundation's calendar, not Sensei's time zones).
extension UsageRoutesTests {
    @Test(arguments: [("Europe/Berlin", "2025-03-30T01:00:00Z"), ("Europe/Berlin", "2025-10-26T01:00:00Z"),
                      ("America/New_York", "2025-03-09T07:00:00Z"), ("America/New_York", "2025-11-02T06:00:00Z")])
    func counterEveryIntervalAcrossTheChange(zone: String, changeText: String) async throws {
        let change = Timestamp(rfc3339: changeText)!.milliseconds
        let (hour, day) = (Self.hour, Self.day)
        let calendar = Self.calendar(zone)
        // The month after the change starts in a gap: the counter is bridged across it.
        let monthStart = Self.milliseconds(calendar.dateInterval(of: .month, for: Self.date(change))!.end)
        let points = Self.counterReadings(around: change, gap: (monthStart - 3 * hour)..<(monthStart + 5 * hour),
                                          seed: UInt64(change))
        #expect(points.count > 5_000)
        try await withTestServer { server in
            let created = try await server.admin.post("/sensors", json: #"{"code":"meter","units":"kWh","kind":"counter"}"#)
            #expect(try created.json["kind"]?.stringValue == "counter")
            try await Self.post(points, to: "meter", on: server)
            let ranges: [(interval: String, unit: Calendar.Component, after: Int64, before: Int64)] = [
                ("hour", .hour, change - 30 * hour, change + 30 * hour),
                ("day", .day, change - 9 * day, change + 9 * day),
                ("week", .weekOfYear, change - 30 * day, change + 30 * day),
                ("month", .month, change - 39 * day, change + 39 * day),
            ]
            // Rows; then the hours a day before the change packed; then every hour.
            for (pass, packUntil) in [("rows", nil), ("half packed", change), ("packed", Timestamp.now().milliseconds)] {
                if let packUntil {
                    #expect(try await server.compact(now: Timestamp(milliseconds: packUntil)).packedHours > 0)
                }
                for range in ranges {
                    let after = Timestamp(milliseconds: range.after).rfc3339
                    let before = Timestamp(milliseconds: range.before).rfc3339
                    let response = try await server.reader.get(
                        "/sensors/meter/usage?interval=\(range.interval)&tz=\(zone)&after=\(after)&before=\(before)")
                    #expect(response.status == 200)
                    let report = try UsageReport(json: response.json)
                    #expect(report.units == "kWh")
                    let bounds = Self.starts(range.unit, in: calendar, from: range.after, before: range.before)
                    let label = "\(zone) \(changeText) \(range.interval) \(pass)"
                    #expect(report.usage.map(\.start.milliseconds) == bounds.dropLast(), "\(label)")
                    for (index, bucket) in report.usage.enumerated() where index + 1 < bounds.count {
                        let expected = Self.increase(points, from: bounds[index], to: bounds[index + 1])
                        #expect(abs(bucket.value - expected) <= 1e-6 * max(1, expected), "\(label) #\(index)")
                        #expect(bucket.count == points.count { $0.time >= bounds[index] && $0.time < bounds[index + 1] },
                                "\(label) #\(index)")
                        #expect(bucket.complete)
                    }
                }
            }
            // The case is what it claims: the day of the change has 23 or 25 hours.
            let dayOfChange = calendar.dateInterval(of: .day, for: Self.date(change))!
            #expect([23.0, 25.0].contains(dayOfChange.duration / 3600))
        }
    }

    /// The stored kind decides: the same two readings are a gauge's integral,
    /// then, once an admin makes the sensor a counter, its increase.
    @Test func usageFollowsTheStoredKind() async throws {
        try await withTestServer { server in
            #expect(try server.admin.post("/sensors", json: #"{"code":"plug","units":"W"}"#).status == 201)
            _ = try server.writer.post("/sensors/plug/data", json: """
                {"data":[{"timestamp":"2025-06-01T10:00:00Z","value":10},{"timestamp":"2025-06-01T10:30:00Z","value":20}]}
                """)
            let query = "/sensors/plug/usage?interval=day&after=2025-06-01T00:00:00Z&before=2025-06-02T00:00:00Z&maxGap=3600"
            let gauge = try UsageReport(json: server.reader.get(query).json)
            // (10 + 20) / 2 W for half an hour.
            #expect(gauge.units == "Wh" && gauge.usage.map(\.value) == [7.5])
            #expect(try server.admin.patch("/sensors/plug", json: #"{"kind":"counter"}"#).status == 200)
            let counter = try UsageReport(json: server.reader.get(query).json)
            #expect(counter.units == "W" && counter.usage.map(\.value) == [10])
        }
    }

    private static let hour: Int64 = 3_600_000
    private static let day: Int64 = 86_400_000

    /// Forty days either side of `change`: 10 s to 20 min apart at random
    /// milliseconds, rising by up to 2.5; now and then a gap of hours (it
    /// kept counting) or a restart from near 0, and a restart right after the
    /// change. Nothing inside `gap`.
    static func counterReadings(around change: Int64, gap: Range<Int64>, seed: UInt64) -> [(time: Int64, value: Double)] {
        var random = SplitMix64(seed: seed)
        var points: [(time: Int64, value: Double)] = []
        var time = change - 40 * day + Int64.random(in: 0..<60_000, using: &random)
        var value = 5_000.0
        var restartedAtChange = false
        while time < change + 40 * day {
            if !gap.contains(time) { points.append((time, value)) }
            let roll = Int.random(in: 0..<1000, using: &random)
            time += roll < 4 ? Int64.random(in: 1...30, using: &random) * hour
                : Int64.random(in: 10_000...1_200_000, using: &random)
            if time >= change && !restartedAtChange {
                value = 0.125
                restartedAtChange = true
            } else if roll >= 4 && roll < 10 {
                value = Double(Int.random(in: 0...500, using: &random)) / 1000
            } else {
                value += Double(Int.random(in: 0...2500, using: &random)) / 1000
            }
        }
        return points
    }

    /// The increase between `from` and `to`: each pair of consecutive
    /// readings rose by the difference, or after a drop (a restart from 0) by
    /// the new value, spread evenly over the time between them, so the share
    /// inside the interval is proportional to the time inside it.
    static func increase(_ points: [(time: Int64, value: Double)], from: Int64, to: Int64) -> Double {
        var total = 0.0
        for (a, b) in zip(points, points.dropFirst()) {
            let inside = min(b.time, to) - max(a.time, from)
            guard inside > 0 else { continue }
            let rise = b.value >= a.value ? b.value - a.value : b.value
            total += rise * Double(inside) / Double(b.time - a.time)
        }
        return total
    }

    /// The starts of every `unit` of the calendar from the one holding `from`
    /// to the last starting before `before`, then that one's end.
    static func starts(_ unit: Calendar.Component, in calendar: Calendar, from: Int64, before: Int64) -> [Int64] {
        var interval = calendar.dateInterval(of: unit, for: date(from))!
        var starts = [milliseconds(interval.start)]
        while milliseconds(interval.end) < before {
            interval = calendar.dateInterval(of: unit, for: interval.end)!
            starts.append(milliseconds(interval.start))
        }
        return starts + [milliseconds(interval.end)]
    }

    /// The Gregorian calendar of `zone`, weeks from Monday.
    static func calendar(_ zone: String) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        calendar.firstWeekday = 2
        return calendar
    }

    static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// The readings through `POST /sensors/<code>/data`, a thousand a request.
    static func post(_ points: [(time: Int64, value: Double)], to code: String, on server: TestServer) async throws {
        for chunk in stride(from: 0, to: points.count, by: 1000) {
            let items = points[chunk..<min(chunk + 1000, points.count)].map {
                #"{"timestamp":"\#(Timestamp(milliseconds: $0.time).rfc3339)","value":\#($0.value)}"#
            }
            let response = try await server.writer.post("/sensors/\(code)/data", json: #"{"data":[\#(items.joined(separator: ","))]}"#)
            #expect(response.status == 201)
        }
    }
}
