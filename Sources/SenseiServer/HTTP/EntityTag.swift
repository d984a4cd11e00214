/// Entity tags of answers whose body a client may already hold.
enum EntityTag {
    /// A weak tag (`W/"…"`) of `body`: the 64-bit FNV-1a hash of its bytes.
    /// Weak, since the same data goes out gzipped or not (RFC 9110 §8.8.1);
    /// a hash, not a version number, so that it holds across restarts and
    /// changes only when the bytes do.
    static func of(_ body: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        body.withUnsafeBufferPointer { bytes in
            for byte in bytes {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01b3
            }
        }
        let hex = String(hash, radix: 16)
        return "W/\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    /// Whether `If-None-Match` (`header`) holds `tag`, by the weak
    /// comparison (RFC 9110 §13.1.2): `W/"x"` and `"x"` match; `*` matches any.
    static func matches(_ header: String, _ tag: String) -> Bool {
        let opaque = tag.hasPrefix("W/") ? tag.dropFirst(2) : Substring(tag)
        for item in header.split(separator: ",") {
            var held = item.trimmingWhitespace()
            if held == "*" { return true }
            if held.hasPrefix("W/") { held = held.dropFirst(2) }
            if held == opaque { return true }
        }
        return false
    }
}
