extension LineProtocolParser {
    /// A line's numeric (and boolean) fields and string fields, counted with
    /// the parser's escape rules (`\ `, `\,`, `\"`, quoted strings) without
    /// converting values or checking the line: `sensei import` counts what it
    /// sends with it (a full parse costs about fifteen times as much), and the
    /// server parses and checks every line it is sent.
    public static func fieldCounts(_ line: UnsafeBufferPointer<UInt8>) -> (numeric: Int, strings: Int) {
        var numeric = 0, strings = 0
        var index = 0
        let end = line.count
        // The measurement and tags end at the first unescaped space.
        while index < end && line[index] != UInt8(ascii: " ") {
            if line[index] == UInt8(ascii: "\\") { index += 1; if index == end { break } }
            index += 1
        }
        while index < end && line[index] == UInt8(ascii: " ") { index += 1 }
        while index < end {
            // key=
            while index < end && line[index] != UInt8(ascii: "=") {
                if line[index] == UInt8(ascii: "\\") { index += 1; if index == end { break } }
                index += 1
            }
            guard index < end else { break }
            index += 1
            if index < end && line[index] == UInt8(ascii: "\"") {
                strings += 1
                index += 1
                while index < end && line[index] != UInt8(ascii: "\"") {
                    if line[index] == UInt8(ascii: "\\") { index += 1; if index == end { break } }
                    index += 1
                }
                if index < end { index += 1 }
            } else {
                numeric += 1
                while index < end && line[index] != UInt8(ascii: ",") && line[index] != UInt8(ascii: " ") { index += 1 }
            }
            guard index < end, line[index] == UInt8(ascii: ",") else { break }
            index += 1
        }
        return (numeric, strings)
    }
}
