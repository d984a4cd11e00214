/// `pretty=true`: the compact JSON re-indented as Go's `json.MarshalIndent(v,
/// "", "    ")` lays it out (`"key": value`, four spaces a level, `[]` and
/// `{}` kept empty).
enum InfluxPrettyJSON {
    static func indent(_ compact: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(compact.count * 2)
        var depth = 0
        var inString = false
        var escaped = false
        func newline() {
            out.append(0x0A)
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 4))
        }
        var index = 0
        while index < compact.count {
            let byte = compact[index]
            defer { index += 1 }
            if inString {
                out.append(byte)
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                out.append(byte)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                out.append(byte)
                let close = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if index + 1 < compact.count, compact[index + 1] == close {
                    out.append(close)
                    index += 1
                } else {
                    depth += 1
                    newline()
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                newline()
                out.append(byte)
            case UInt8(ascii: ","):
                out.append(byte)
                newline()
            case UInt8(ascii: ":"):
                out.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
            default:
                out.append(byte)
            }
        }
        return out
    }
}
