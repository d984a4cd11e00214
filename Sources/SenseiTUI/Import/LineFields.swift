/// Counts a line-protocol line's fields without parsing them: numbers and
/// booleans become readings, string fields are skipped by the server (as
/// `/write` does). Escapes (`\ `, `\,`, `\"`) and quoted strings are honoured,
/// so a space inside a tag value or a string does not end a section. The
/// server still checks every line; this is for counting and the summary.
enum LineFields {
    static func count<Bytes: Collection<UInt8>>(_ line: Bytes) -> (numeric: Int, strings: Int) {
        var numeric = 0, strings = 0
        var index = line.startIndex
        // The measurement and tags end at the first unescaped space.
        while index != line.endIndex && line[index] != UInt8(ascii: " ") {
            if line[index] == UInt8(ascii: "\\") { index = line.index(after: index); if index == line.endIndex { break } }
            index = line.index(after: index)
        }
        while index != line.endIndex && line[index] == UInt8(ascii: " ") { index = line.index(after: index) }
        while index != line.endIndex {
            // key=
            while index != line.endIndex && line[index] != UInt8(ascii: "=") {
                if line[index] == UInt8(ascii: "\\") { index = line.index(after: index); if index == line.endIndex { break } }
                index = line.index(after: index)
            }
            guard index != line.endIndex else { break }
            index = line.index(after: index)
            if index != line.endIndex && line[index] == UInt8(ascii: "\"") {
                strings += 1
                index = line.index(after: index)
                while index != line.endIndex && line[index] != UInt8(ascii: "\"") {
                    if line[index] == UInt8(ascii: "\\") { index = line.index(after: index); if index == line.endIndex { break } }
                    index = line.index(after: index)
                }
                if index != line.endIndex { index = line.index(after: index) }
            } else {
                numeric += 1
                while index != line.endIndex && line[index] != UInt8(ascii: ",") && line[index] != UInt8(ascii: " ") {
                    index = line.index(after: index)
                }
            }
            guard index != line.endIndex, line[index] == UInt8(ascii: ",") else { break }
            index = line.index(after: index)
        }
        return (numeric, strings)
    }
}
