import SenseiDigest
import SenseiModels

/// The code of a sensor an ingest path creates: readable, the same for the
/// same series and database, and never another sensor's.
///
/// 1. The preferred code, sanitized: every character outside `[A-Za-z0-9_-]`
///    becomes `_`, runs of `_` become one, `_` at either end goes; nothing
///    left is `series`.
/// 2. If that is at most 50 characters and no sensor has it: that.
/// 3. Otherwise its first 41 characters, `_` and 8 hex digits of the SHA-256
///    of the series identity (`cpu_total_…_3f9a0c12`); should that be taken
///    too, the hash of the identity followed by `#2`, `#3`, … until free.
enum SeriesCode {
    static func code(preferred: String, identity: SeriesIdentity, isTaken: (String) throws -> Bool) rethrows -> String {
        let base = sanitized(preferred)
        if base.utf8.count <= SensorCode.maximumLength, try !isTaken(base) { return base }
        let prefix = base.prefix(SensorCode.maximumLength - 9)
        var attempt = 1
        while true {
            let candidate = prefix + "_" + hash(identity.key + (attempt == 1 ? "" : "#\(attempt)"))
            if try !isTaken(candidate) { return candidate }
            attempt += 1
        }
    }

    static func sanitized(_ preferred: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(preferred.utf8.count)
        for scalar in preferred.unicodeScalars {
            let allowed = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                                             || scalar == "-" || scalar == "_")
            let byte = allowed ? UInt8(scalar.value) : UInt8(ascii: "_")
            if byte == UInt8(ascii: "_"), bytes.last == UInt8(ascii: "_") || bytes.isEmpty { continue }
            bytes.append(byte)
        }
        while bytes.last == UInt8(ascii: "_") { bytes.removeLast() }
        return bytes.isEmpty ? "series" : String(decoding: bytes, as: UTF8.self)
    }

    private static func hash(_ text: String) -> String {
        let digest = SHA256.hash(text)
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in digest.prefix(4) {
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
