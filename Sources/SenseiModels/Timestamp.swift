#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An instant at millisecond precision, UTC: the wire's and the store's unit of time.
///
/// On the wire it is RFC 3339 (`2025-01-09T12:00:00Z`, with `.SSS` only when the
/// milliseconds are non-zero). Formatting and parsing are done by hand: no
/// locale, no formatter objects, no allocation beyond the output.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var milliseconds: Int64

    /// 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z: what four-digit years can write.
    public static let range: ClosedRange<Int64> = -62_135_596_800_000...253_402_300_799_999

    public init(milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    /// Epoch seconds, fractional allowed, rounded to the nearest millisecond;
    /// nil when not finite or outside `range`.
    public init?(epochSeconds: Double) {
        guard epochSeconds.isFinite else { return nil }
        let milliseconds = (epochSeconds * 1000).rounded()
        guard milliseconds >= Double(Self.range.lowerBound),
              milliseconds <= Double(Self.range.upperBound) else { return nil }
        self.milliseconds = Int64(milliseconds)
    }

    public static func now() -> Timestamp {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Timestamp(milliseconds: Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000)
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.milliseconds < rhs.milliseconds }

    public func adding(milliseconds delta: Int64) -> Timestamp {
        Timestamp(milliseconds: milliseconds + delta)
    }

    public var epochSeconds: Double { Double(milliseconds) / 1000 }

    public var description: String { rfc3339 }

    public var rfc3339: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        appendRFC3339(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The calendar fields in UTC.
    public var components: (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, millisecond: Int) {
        let (days, msOfDay) = milliseconds.floorDivided(by: 86_400_000)
        let (year, month, day) = CivilCalendar.civil(fromDays: days)
        let seconds = Int(msOfDay / 1000)
        return (year, month, day, seconds / 3600, seconds / 60 % 60, seconds % 60, Int(msOfDay % 1000))
    }

    public func appendRFC3339(to bytes: inout [UInt8]) {
        var dates = RFC3339Dates()
        dates.append(self, to: &bytes)
    }

    /// Parses RFC 3339 (`T`, `t` or a space between date and time; `Z` or an
    /// offset). Digits past the millisecond are dropped.
    public init?(rfc3339 text: String) {
        var text = text
        guard let value = text.withUTF8({ Timestamp.parseRFC3339($0) }) else { return nil }
        self = value
    }

    /// A query parameter or JSON string: RFC 3339, or epoch seconds as digits.
    /// A `+` offset written unencoded in a URL reaches the server as a space
    /// (`12:00:00 01:00`); that is read as the `+` it was.
    public init?(parameter text: String) {
        if let value = Timestamp(rfc3339: text) {
            self = value
        } else if text.utf8.count > 6, text.utf8.dropLast(5).last == UInt8(ascii: " "),
                  let value = Timestamp(rfc3339: String(text.dropLast(6)) + "+" + text.suffix(5)) {
            self = value
        } else if text.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") || ($0 &- 48) < 10 }),
                  let seconds = Double(text), let value = Timestamp(epochSeconds: seconds) {
            self = value
        } else {
            return nil
        }
    }

    /// `init(rfc3339:)` on UTF-8 bytes, without making a String (export reads millions).
    public static func parseRFC3339(_ b: UnsafeBufferPointer<UInt8>) -> Timestamp? {
        guard b.count >= 20 else { return nil }
        func digits(_ start: Int, _ count: Int) -> Int? {
            var value = 0
            for index in start..<(start + count) {
                let digit = b[index] &- 48
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
            }
            return value
        }
        guard let year = digits(0, 4), b[4] == UInt8(ascii: "-"),
              let month = digits(5, 2), b[7] == UInt8(ascii: "-"),
              let day = digits(8, 2),
              b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t") || b[10] == UInt8(ascii: " "),
              let hour = digits(11, 2), b[13] == UInt8(ascii: ":"),
              let minute = digits(14, 2), b[16] == UInt8(ascii: ":"),
              let second = digits(17, 2) else { return nil }
        guard year >= 1, (1...12).contains(month), day >= 1, day <= CivilCalendar.daysIn(month: month, year: year),
              hour < 24, minute < 60, second < 60 else { return nil }

        var index = 19
        var millisecond = 0
        if b[index] == UInt8(ascii: ".") {
            index += 1
            let start = index
            while index < b.count, b[index] &- 48 < 10 {
                if index - start < 3 { millisecond = millisecond * 10 + Int(b[index] - 48) }
                index += 1
            }
            guard index > start else { return nil }
            for _ in 0..<max(0, 3 - (index - start)) { millisecond *= 10 }
        }
        guard index < b.count else { return nil }
        var offsetMinutes = 0
        switch b[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = b[index] == UInt8(ascii: "-") ? -1 : 1
            guard index + 6 == b.count, let hours = digits(index + 1, 2), b[index + 3] == UInt8(ascii: ":"),
                  let minutes = digits(index + 4, 2), hours < 24, minutes < 60 else { return nil }
            offsetMinutes = sign * (hours * 60 + minutes)
            index += 6
        default:
            return nil
        }
        guard index == b.count else { return nil }
        let days = CivilCalendar.days(year: year, month: month, day: day)
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes * 60)
        let value = seconds * 1000 + Int64(millisecond)
        guard range.contains(value) else { return nil }
        return Timestamp(milliseconds: value)
    }
}


