/// An integer's decimal digits, with a minus before a negative one: what
/// JSON numbers and line protocol's timestamps write.
public func appendInteger(_ value: Int64, to bytes: inout [UInt8]) {
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    appendUnsigned(value.magnitude, to: &bytes)
}

/// The decimal digits of `value`.
func appendUnsigned(_ value: UInt64, to bytes: inout [UInt8]) {
    var rest = value
    var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                 UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var count = 0
    withUnsafeMutableBytes(of: &digits) { buffer in
        repeat {
            buffer[19 - count] = UInt8(rest % 10) + 48
            rest /= 10
            count += 1
        } while rest > 0
        bytes.append(contentsOf: buffer[(20 - count)...])
    }
}
