/// JSON numbers (RFC 8259 grammar) read straight from bytes: shared by the
/// general parser and the posted-readings fast path, so both read every
/// number the same way.
enum JSONNumber {
    /// Reads the number starting at `position` and moves past it; nil, with
    /// `position` where the grammar broke, when it is not a JSON number.
    /// Out-of-range numbers come back as ±infinity, for callers to refuse.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, at position: inout Int) -> Double? {
        let start = position
        var negative = false
        // Digits as an integer while they fit, and where the point and exponent are.
        var mantissa: UInt64 = 0
        var digits = 0
        var fractionDigits = 0
        var hasExponent = false
        if bytes[position] == UInt8(ascii: "-") { negative = true; position += 1 }
        guard position < bytes.count, JSONBytes.isDigit(bytes[position]) else { return nil }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            while position < bytes.count, JSONBytes.isDigit(bytes[position]) {
                mantissa = mantissa &* 10 &+ UInt64(bytes[position] &- 48)
                digits += 1
                position += 1
            }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard position < bytes.count, JSONBytes.isDigit(bytes[position]) else { return nil }
            while position < bytes.count, JSONBytes.isDigit(bytes[position]) {
                mantissa = mantissa &* 10 &+ UInt64(bytes[position] &- 48)
                if mantissa != 0 { digits += 1 }
                fractionDigits += 1
                position += 1
            }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            hasExponent = true
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard position < bytes.count, JSONBytes.isDigit(bytes[position]) else { return nil }
            while position < bytes.count, JSONBytes.isDigit(bytes[position]) { position += 1 }
        }
        // Up to 15 significant digits and 22 decimals, mantissa / 10^k is one
        // correctly rounded division of two exact doubles: the same double a
        // full decimal parser gives (Clinger's fast path), without a string.
        if !hasExponent && digits <= 15 && fractionDigits <= 22 {
            let magnitude = Double(mantissa) / powersOfTen[fractionDigits]
            // `-0` as an integer is plain 0, as it always was here; `-0.0` keeps its sign.
            return negative && (mantissa != 0 || fractionDigits > 0) ? -magnitude : magnitude
        }
        // Swift's parser is locale-independent (strtod is not) and gives ±inf
        // for out-of-range values.
        let slice = UnsafeBufferPointer(rebasing: bytes[start..<position])
        return Double(String(decoding: slice, as: UTF8.self)) ?? .nan
    }

    /// 10^0 … 10^22, all exact in a Double.
    private static let powersOfTen: [Double] = (0...22).map { exponent in
        (0..<exponent).reduce(1.0) { value, _ in value * 10 }
    }
}
