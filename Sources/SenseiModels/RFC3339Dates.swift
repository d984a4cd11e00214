/// Writes timestamps as RFC 3339 in UTC (`2024-01-01T00:00:30Z`, with
/// `.123` when there are milliseconds), remembering the last one's date: a
/// page of readings works out the calendar date once a day instead of once a
/// reading, where it was a tenth of the server's time answering a bulk read.
public struct RFC3339Dates: Sendable {
    private var day: Int64 = .min
    private var date = (year: 0, month: 0, day: 0)

    public init() {}

    public mutating func append(_ timestamp: Timestamp, to bytes: inout [UInt8]) {
        let (days, msOfDay) = timestamp.milliseconds.floorDivided(by: 86_400_000)
        if days != day {
            date = CivilCalendar.civil(fromDays: days)
            day = days
        }
        let seconds = Int(msOfDay / 1000)
        let millisecond = Int(msOfDay % 1000)
        // Filled in a fixed buffer and appended once: this runs for every
        // reading of every response.
        var text: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                   UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 45, 0, 0, 45, 0, 0, 84, 0, 0, 58, 0, 0, 58, 0, 0, 46, 0, 0, 0, 90)
        withUnsafeMutableBytes(of: &text) { buffer in
            func put(_ value: Int, _ width: Int, at offset: Int) {
                var rest = max(0, value)
                for index in stride(from: offset + width - 1, through: offset, by: -1) {
                    buffer[index] = UInt8(rest % 10) + 48
                    rest /= 10
                }
            }
            put(date.year, 4, at: 0)
            put(date.month, 2, at: 5)
            put(date.day, 2, at: 8)
            put(seconds / 3600, 2, at: 11)
            put(seconds / 60 % 60, 2, at: 14)
            put(seconds % 60, 2, at: 17)
            if millisecond != 0 {
                put(millisecond, 3, at: 20)
                bytes.append(contentsOf: buffer[0..<24])
            } else {
                buffer[19] = UInt8(ascii: "Z")
                bytes.append(contentsOf: buffer[0..<20])
            }
        }
    }
}
