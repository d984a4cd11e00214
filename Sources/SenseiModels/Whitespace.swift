extension StringProtocol {
    /// Without the spaces, tabs, carriage returns and line feeds at either
    /// end: the one trimmer of every path (a reading's string value, a
    /// header's parts, an MQTT payload). It compares bytes, not Characters:
    /// in Swift `"\r\n"` is one Character, equal to neither `"\r"` nor `"\n"`,
    /// and firmware that prints a value with `println` ends it so.
    public func trimmingWhitespace() -> SubSequence {
        let bytes = utf8
        guard let first = bytes.firstIndex(where: { !Self.isWhitespace($0) }) else { return self[endIndex...] }
        var last = first
        var index = first
        while index != bytes.endIndex {
            if !Self.isWhitespace(bytes[index]) { last = index }
            index = bytes.index(after: index)
        }
        return self[first...last]
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
    }
}
