#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SenseiModels

/// Text for values, ages, durations and times, done by hand: no locale, no
/// Foundation formatters, so output is the same on every machine and in tests.
public enum Format {
    // MARK: Values

    /// A reading as a person reads it, with units: ints without decimals,
    /// bools as on/off (units make no sense there), floats to 5 significant digits.
    public static func value(_ value: Double, type: ValueType, units: String) -> String {
        let text = self.value(value, type: type)
        guard type != .bool, !units.isEmpty else { return text }
        return text + " " + units
    }

    public static func value(_ value: Double, type: ValueType) -> String {
        switch type {
        case .bool:
            return value != 0 ? "on" : "off"
        case .int:
            let rounded = value.rounded()
            return abs(rounded) < 9e15 ? String(Int64(rounded)) : number(value)
        case .float:
            return number(value)
        }
    }

    /// `value` to `significantDigits` (but at most `maxDecimals` decimals),
    /// trailing zeros dropped: 23.5, 1013.2, 0.0012346, 101325. Numbers too
    /// small or large for that use an exponent: 1.5e-7.
    public static func number(_ value: Double, significantDigits: Int = 5, maxDecimals: Int = 6) -> String {
        guard value.isFinite else { return value.isNaN ? "NaN" : (value < 0 ? "-inf" : "inf") }
        if value == 0 { return "0" }
        let magnitude = abs(value)
        if magnitude < 1e-4 || magnitude >= 1e15 {
            return scientific(value, significantDigits: significantDigits)
        }
        let exponent = Int(magnitude.log10Floor)
        let decimals = min(maxDecimals, max(0, significantDigits - 1 - exponent))
        return trimmed(fixed(value, decimals: decimals))
    }

    /// `value` with exactly `decimals` decimals (half away from zero); never "-0".
    public static func fixed(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return number(value) }
        let decimals = max(0, min(decimals, 12))
        var scale: UInt64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * Double(scale)).rounded()
        guard scaled < 9e15 else { return scientific(value, significantDigits: 6) }
        let units = UInt64(scaled)
        var text = units > 0 && value < 0 ? "-" : ""
        text += String(units / scale)
        if decimals > 0 {
            let fraction = String(units % scale)
            text += "." + String(repeating: "0", count: decimals - fraction.count) + fraction
        }
        return text
    }

    static func scientific(_ value: Double, significantDigits: Int) -> String {
        var exponent = Int(abs(value).log10Floor)
        var mantissa = value / pow10(exponent)
        let decimals = max(0, significantDigits - 1)
        if abs(Double(fixed(mantissa, decimals: decimals)) ?? 0) >= 10 {
            exponent += 1
            mantissa = value / pow10(exponent)
        }
        return trimmed(fixed(mantissa, decimals: decimals)) + "e" + String(exponent)
    }

    /// "1.500" → "1.5", "2.000" → "2"; integers untouched.
    static func trimmed(_ text: String) -> String {
        guard text.contains(".") else { return text }
        var text = Substring(text)
        while text.last == "0" { text = text.dropLast() }
        if text.last == "." { text = text.dropLast() }
        return String(text)
    }

    static func pow10(_ exponent: Int) -> Double {
        var result = 1.0
        for _ in 0..<abs(exponent) { result *= 10 }
        return exponent < 0 ? 1 / result : result
    }

    // MARK: Ages and durations

    /// How long ago `time` was: "just now", "45s ago", "3m ago", "5h ago",
    /// "2d ago", "3y ago". A time ahead of `now` (a fast device clock) is "just now".
    public static func age(of time: Timestamp, now: Timestamp) -> String {
        age(milliseconds: now.milliseconds - time.milliseconds)
    }

    public static func age(milliseconds: Int64) -> String {
        let seconds = milliseconds / 1000
        switch seconds {
        case ..<5: return "just now"
        case ..<60: return "\(seconds)s ago"
        case ..<3600: return "\(seconds / 60)m ago"
        case ..<86_400: return "\(seconds / 3600)h ago"
        case ..<(365 * 86_400): return "\(seconds / 86_400)d ago"
        default: return "\(seconds / (365 * 86_400))y ago"
        }
    }

    /// A span in its two largest units: "850ms", "45s", "3m 20s", "1h 30m", "2d 5h".
    public static func duration(milliseconds: Int64) -> String {
        let ms = max(0, milliseconds)
        if ms < 1000 { return "\(ms)ms" }
        let seconds = ms / 1000
        func two(_ big: Int64, _ bigUnit: String, _ small: Int64, _ smallUnit: String) -> String {
            small == 0 ? "\(big)\(bigUnit)" : "\(big)\(bigUnit) \(small)\(smallUnit)"
        }
        switch seconds {
        case ..<60: return "\(seconds)s"
        case ..<3600: return two(seconds / 60, "m", seconds % 60, "s")
        case ..<86_400: return two(seconds / 3600, "h", seconds / 60 % 60, "m")
        default: return two(seconds / 86_400, "d", seconds / 3600 % 24, "h")
        }
    }

    // MARK: Times, in the offset the caller passes

    /// "2025-01-09 14:05:30" (or "2025-01-09 14:05" without seconds).
    public static func dateTime(_ time: Timestamp, utcOffsetSeconds: Int, seconds: Bool = true) -> String {
        let local = LocalTime(time, utcOffsetSeconds: utcOffsetSeconds)
        return date(local) + " " + clock(local, seconds: seconds)
    }

    /// "2025-01-09".
    public static func date(_ time: Timestamp, utcOffsetSeconds: Int) -> String {
        date(LocalTime(time, utcOffsetSeconds: utcOffsetSeconds))
    }

    /// "14:05:30" (or "14:05").
    public static func time(_ time: Timestamp, utcOffsetSeconds: Int, seconds: Bool = true) -> String {
        clock(LocalTime(time, utcOffsetSeconds: utcOffsetSeconds), seconds: seconds)
    }

    /// "Jan 09 14:05:30" (or "Jan 09 14:05").
    public static func monthDayTime(_ time: Timestamp, utcOffsetSeconds: Int, seconds: Bool = true) -> String {
        let local = LocalTime(time, utcOffsetSeconds: utcOffsetSeconds)
        return local.monthName + " " + padded(local.day) + " " + clock(local, seconds: seconds)
    }

    static func date(_ local: LocalTime) -> String {
        padded(local.year, width: 4) + "-" + padded(local.month) + "-" + padded(local.day)
    }

    static func clock(_ local: LocalTime, seconds: Bool) -> String {
        let hm = padded(local.hour) + ":" + padded(local.minute)
        return seconds ? hm + ":" + padded(local.second) : hm
    }

    static func padded(_ value: Int, width: Int = 2) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

extension Double {
    /// floor(log10(self)) for positive finite values, corrected for the
    /// rounding of log10 near powers of ten (log10(1000) may come out as 2.9999…).
    var log10Floor: Double {
        var exponent = log10(self).rounded(.down)
        if Format.pow10(Int(exponent)) > self { exponent -= 1 }
        if Format.pow10(Int(exponent) + 1) <= self { exponent += 1 }
        return exponent
    }
}
