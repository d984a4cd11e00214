import SenseiModels
import Testing

@Suite struct TimestampRoundTripTests {
    /// Every ~92 days plus an odd number of milliseconds across the whole range,
    /// and pseudo-random instants: formatted text matches an independent calendar
    /// and parses back to the same instant, also written with an offset.
    @Test func roundTripsAcrossTheRange() {
        let calendar = NaiveCalendar()
        #expect(calendar.yearStart[1970] == 0)
        #expect(calendar.yearStart[2025] == 20_089)

        var samples: [Int64] = []
        var value = Timestamp.range.lowerBound
        while value <= Timestamp.range.upperBound {
            samples.append(value)
            value += 7_919_000_017
        }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let span = UInt64(Timestamp.range.upperBound - Timestamp.range.lowerBound + 1)
        for _ in 0..<5_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            samples.append(Timestamp.range.lowerBound + Int64((state >> 11) % span))
        }
        samples += [Timestamp.range.upperBound, -1, 0, 1, 999, 1_000, -1_000, -1_001]

        var failures: [Int64] = []
        for milliseconds in samples {
            let timestamp = Timestamp(milliseconds: milliseconds)
            let text = timestamp.rfc3339
            let expected = calendar.rfc3339(milliseconds: milliseconds, offsetMinutes: 0)
            if text != expected || Timestamp(rfc3339: text) != timestamp || Timestamp(parameter: text) != timestamp
                || Timestamp(epochSeconds: timestamp.epochSeconds) != timestamp {
                failures.append(milliseconds)
                continue
            }
            for offset in [330, -570, 1_439, -1_439] {
                let local = milliseconds + Int64(offset) * 60_000
                guard Timestamp.range.contains(local) else { continue }
                let shifted = calendar.rfc3339(milliseconds: milliseconds, offsetMinutes: offset)
                if Timestamp(rfc3339: shifted) != timestamp { failures.append(milliseconds) }
            }
        }
        #expect(samples.count > 40_000)
        #expect(failures.isEmpty, "first failures: \(failures.prefix(5))")
    }

    /// A writer remembers the last timestamp's date: timestamps a second
    /// apart across midnights, a day apart and back again, and the samples
    /// out of order, each written as the calendar says.
    @Test func aWriterOfManyTimestampsWritesEachDate() throws {
        let calendar = NaiveCalendar()
        var samples: [Int64] = []
        for midnight in [Int64(0), 1_704_067_200_000, -86_400_000, 253_402_214_400_000] {
            samples += stride(from: midnight - 3_000, through: midnight + 3_000, by: 999).map { $0 }
        }
        samples += stride(from: Int64(1_700_000_000_123), to: 1_700_000_000_123 + 40 * 86_400_000, by: 86_400_000)
        samples += samples.reversed()
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        for _ in 0..<2_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            samples.append(Int64(bitPattern: state >> 24) % 250_000_000_000_000)
        }
        var writer = JSONWriter()
        writer.beginArray()
        for milliseconds in samples { writer.timestamp(Timestamp(milliseconds: milliseconds)) }
        writer.endArray()
        let written = try #require(try JSONParser.parse(writer.bytes).arrayValue).map(\.stringValue)
        #expect(written == samples.map { calendar.rfc3339(milliseconds: $0, offsetMinutes: 0) })
    }
}

/// A calendar counted year by year and month by month, sharing no code with the
/// closed-form arithmetic it checks.
private struct NaiveCalendar {
    /// Days from 1970-01-01 to January 1st of each year, indexed by year (1...10000).
    let yearStart: [Int64]

    init() {
        var starts = [Int64](repeating: 0, count: 10_001)
        // 0001-01-01 is 62,135,596,800 s = 719,162 days before the epoch.
        var day: Int64 = -719_162
        for year in 1...10_000 {
            starts[year] = day
            day += Self.isLeap(year) ? 366 : 365
        }
        yearStart = starts
    }

    static func isLeap(_ year: Int) -> Bool {
        if year % 400 == 0 { return true }
        if year % 100 == 0 { return false }
        return year % 4 == 0
    }

    /// The instant written as local time at `offsetMinutes` east of UTC.
    func rfc3339(milliseconds: Int64, offsetMinutes: Int) -> String {
        let local = milliseconds + Int64(offsetMinutes) * 60_000
        var days = local / 86_400_000
        var rest = local % 86_400_000
        if rest < 0 {
            days -= 1
            rest += 86_400_000
        }
        // Start from an estimate, then step to the year whose span holds the day.
        var year = min(max(1_970 + Int(Double(days) / 365.2425), 1), 10_000)
        while year > 1 && yearStart[year] > days { year -= 1 }
        while year < 10_000 && yearStart[year + 1] <= days { year += 1 }
        var dayOfYear = Int(days - yearStart[year])
        let monthLengths = [31, Self.isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        var month = 1
        while dayOfYear >= monthLengths[month - 1] {
            dayOfYear -= monthLengths[month - 1]
            month += 1
        }
        let ms = Int(rest % 1_000)
        let seconds = Int(rest / 1_000)
        var text = "\(pad(year, 4))-\(pad(month, 2))-\(pad(dayOfYear + 1, 2))T"
        text += "\(pad(seconds / 3_600, 2)):\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2))"
        if ms != 0 { text += ".\(pad(ms, 3))" }
        if offsetMinutes == 0 { return text + "Z" }
        let sign = offsetMinutes < 0 ? "-" : "+"
        return text + "\(sign)\(pad(abs(offsetMinutes) / 60, 2)):\(pad(abs(offsetMinutes) % 60, 2))"
    }

    private func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
