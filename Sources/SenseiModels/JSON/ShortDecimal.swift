/// Writes a value with one to three decimals, `230.3`, `-0.25`, `21.125`,
/// when that is how it reads back: the text `Double.description` gives
/// such a value, without its general shortest-digits search, which took a
/// tenth of the server's time answering a bulk read. Most sensor values are
/// of this kind; false (nothing written) for any other.
///
/// Why the text is the same: for 0.001 ≤ |value| < 1e9, a double's
/// neighbours are under 1e-6 away, so at most one number with three decimals
/// or fewer reads back as it, and the fewest decimals that do are the
/// shortest text. `m / 10^k` is that number when the division of the two
/// exact doubles gives `value` back, because IEEE division rounds correctly,
/// as reading the text does.
func appendShortDecimal(_ value: Double, to bytes: inout [UInt8]) -> Bool {
    let magnitude = value.magnitude
    guard magnitude >= 0.001, magnitude < 1e9 else { return false }
    var scale = 1.0
    for decimals in 1...3 {
        scale *= 10
        let scaled = (magnitude * scale).rounded()
        guard scaled / scale == magnitude else { continue }
        let digits = Int64(scaled), unit = Int64(scale)
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        appendUnsigned(UInt64(digits / unit), to: &bytes)
        bytes.append(UInt8(ascii: "."))
        var fraction = digits % unit
        var text: (UInt8, UInt8, UInt8) = (48, 48, 48)
        withUnsafeMutableBytes(of: &text) { buffer in
            for index in stride(from: decimals - 1, through: 0, by: -1) {
                buffer[index] = UInt8(fraction % 10) + 48
                fraction /= 10
            }
            bytes.append(contentsOf: buffer[0..<decimals])
        }
        return true
    }
    return false
}
