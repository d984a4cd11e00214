// Names and strings out of a parsed line, unescaped as InfluxDB unescapes them
// (pkg/escape and models/points.go). No imports: fuzz/run.sh builds it too.

/// Which backslash escapes a part of a line has.
public enum LineEscapes: Sendable {
    /// Measurements: `\,` `\ ` (`cpu\=load` keeps its backslash, as in InfluxDB).
    case measurement
    /// Tag keys and values, field keys: `\,` `\ ` `\=`.
    case tag
    /// String field values: `\"` and `\\`.
    case string

    func unescapes(_ byte: UInt8) -> Bool {
        switch self {
        case .measurement: byte == UInt8(ascii: ",") || byte == UInt8(ascii: " ")
        case .tag: byte == UInt8(ascii: ",") || byte == UInt8(ascii: " ") || byte == UInt8(ascii: "=")
        case .string: byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
        }
    }
}

extension LineSpan {
    /// The bytes as written.
    public func raw(in body: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: body[start..<end])
    }

    /// The text with its escapes removed (a backslash before any other byte stays).
    public func text(in body: UnsafeBufferPointer<UInt8>, _ escapes: LineEscapes) -> String {
        let bytes = raw(in: body)
        guard bytes.contains(UInt8(ascii: "\\")) else { return String(decoding: bytes, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "\\") && i + 1 < bytes.count && escapes.unescapes(bytes[i + 1]) {
                out.append(bytes[i + 1])
                i += 2
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
