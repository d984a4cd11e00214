/// Number formatting for the bench's output, without Foundation's formatters.
enum Format {
    /// 1234567 -> "1,234,567".
    static func grouped(_ value: Int) -> String {
        let digits = String(abs(value))
        var out = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0 && (digits.count - offset) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return value < 0 ? "-" + out : out
    }

    /// Rounded to `places` decimals: decimal(2.345, places: 2) -> "2.35".
    static func decimal(_ value: Double, places: Int) -> String {
        guard value.isFinite else { return "-" }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = Int((abs(value) * scale).rounded())
        let sign = value < 0 && scaled != 0 ? "-" : ""
        guard places > 0 else { return sign + String(scaled) }
        let whole = scaled / Int(scale)
        var fraction = String(scaled % Int(scale))
        while fraction.count < places { fraction = "0" + fraction }
        return sign + String(whole) + "." + fraction
    }

    /// Milliseconds with sensible precision: 0.084, 1.23, 12.3, 123.
    static func milliseconds(_ value: Double) -> String {
        switch value {
        case ..<1: decimal(value, places: 3)
        case ..<10: decimal(value, places: 2)
        case ..<100: decimal(value, places: 1)
        default: decimal(value, places: 0)
        }
    }
}
