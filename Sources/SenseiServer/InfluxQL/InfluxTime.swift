import Foundation
import SenseiModels

/// Time as InfluxQL handles it: nanoseconds since the epoch (Sensei stores
/// milliseconds; a reading at `ms` is `ms * 1_000_000` here), its bounds, its
/// output formats and its windows.
enum InfluxTime {
    /// InfluxDB's `MinTime` and `MaxTime`.
    static let min: Int64 = -9_223_372_036_854_775_806
    static let max: Int64 = 9_223_372_036_854_775_806

    /// The milliseconds a nanosecond time can hold (years 1677 to 2262):
    /// readings outside are out of InfluxQL's reach, as they are in InfluxDB.
    static let millisecondRange: ClosedRange<Int64> = -9_223_372_036_854...9_223_372_036_854

    static func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }

    /// Nanoseconds per unit of the `epoch` parameter; nil for RFC 3339.
    static func epochUnit(_ text: String?) -> Int64? {
        switch text {
        case "n", "ns": 1
        case "u", "µ", "us": 1_000
        case "ms": 1_000_000
        case "s": 1_000_000_000
        case "m": 60_000_000_000
        case "h": 3_600_000_000_000
        default: nil
        }
    }

    /// Go's RFC3339Nano (`2025-01-09T12:00:00Z`, `…:00.5Z`, trailing zeros
    /// cut), in `zone` with its offset when one is given.
    static func rfc3339(_ ns: Int64, zone: TimeZone?) -> String {
        var offsetSeconds = 0
        if let zone { offsetSeconds = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(ns.floorDivided(by: 1_000_000_000).0))) }
        let local = ns.floorDivided(by: 1_000_000_000).0 + Int64(offsetSeconds)
        let fraction = ns.floorDivided(by: 1_000_000_000).1
        let (days, secondOfDay) = local.floorDivided(by: 86_400)
        let (year, month, day) = CivilCalendar.civil(fromDays: days)
        var text = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", year, month, day,
                          Int(secondOfDay / 3600), Int(secondOfDay % 3600 / 60), Int(secondOfDay % 60))
        if fraction != 0 {
            var digits = String(format: "%09lld", fraction)
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        if zone == nil || offsetSeconds == 0 && zone?.identifier == "UTC" {
            return text + "Z"
        }
        let sign = offsetSeconds < 0 ? "-" : "+"
        let magnitude = abs(offsetSeconds)
        return text + String(format: "%@%02d:%02d", sign, magnitude / 3600, magnitude % 3600 / 60)
    }

    /// A time string of a WHERE clause: RFC 3339 with up to nanoseconds, or
    /// `2006-01-02 15:04:05[.999999999]`, or `2006-01-02`; UTC unless it says.
    static func parse(_ text: String) -> Int64? {
        var body = text
        var fraction: Int64 = 0
        // The fraction, kept to the nanosecond (Timestamp stops at milliseconds).
        if let dot = body.firstIndex(of: "."), body.distance(from: body.startIndex, to: dot) == 19 {
            let digits = body[body.index(after: dot)...].prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 9 else { return nil }
            fraction = Int64(digits.padding(toLength: 9, withPad: "0", startingAt: 0)) ?? 0
            body.removeSubrange(dot..<body.index(dot, offsetBy: digits.count + 1))
        }
        if body.count == 10 { body += "T00:00:00Z" }
        if body.count == 19 { body += "Z" }
        guard let stamp = Timestamp(rfc3339: body) else { return nil }
        let (ns, overflow) = stamp.milliseconds.multipliedReportingOverflow(by: 1_000_000)
        return overflow ? nil : ns + fraction
    }

    /// The window of `every` (shifted by `offset`) holding `t`, as InfluxDB's
    /// `IteratorOptions.Window` cuts it, in `zone`'s wall-clock time.
    static func window(of t: Int64, every: Int64, offset: Int64, zone: TimeZone?) -> (start: Int64, end: Int64) {
        // Wrapping arithmetic: any offset a query gives, and times at the ends, cannot trap.
        let shifted = t &- offset
        let zoneOffset = zone.map { seconds($0, at: shifted) } ?? 0
        var dt = (shifted &+ zoneOffset) % every
        if dt < 0 { dt += every }
        var start = min &+ dt >= shifted ? min : shifted &- dt
        start = start &+ offset
        if let zone {
            let startOffset = seconds(zone, at: start)
            let o = zoneOffset - startOffset
            if o != 0 && Swift.abs(o) < every { start = start &+ o }
        }
        let rest = every - dt
        var end = max &- rest <= shifted ? max : shifted &+ rest
        if let zone {
            let endOffset = seconds(zone, at: end)
            let o = zoneOffset - endOffset
            if o != 0 && Swift.abs(o) < every {
                if o > 0 || seconds(zone, at: end &+ o) == endOffset { end = end &+ o }
            }
        }
        end = end &+ offset
        return (start, end)
    }

    /// The zone's offset at `t`, in nanoseconds.
    private static func seconds(_ zone: TimeZone, at t: Int64) -> Int64 {
        Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(t.floorDivided(by: 1_000_000_000).0)))) * 1_000_000_000
    }
}

