#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Zones by name from the system's tz database: the one file this module reads,
/// so that the server's usage and the dashboard's bars use the same zone.
extension TimeZoneRules {
    /// Where the compiled zones live: `$TZDIR`, else `/usr/share/zoneinfo`.
    public static var systemDirectory: String {
        getenv("TZDIR").map { String(cString: $0) } ?? "/usr/share/zoneinfo"
    }

    /// The zone named `identifier` (`Europe/Berlin`, `UTC`); an error naming it when
    /// the name is malformed or the database has no such zone.
    public static func named(_ identifier: String, in directory: String = systemDirectory)
        throws(TimeZoneError) -> TimeZoneRules {
        guard isWellFormed(identifier) else { throw TimeZoneError("\"\(identifier)\" is not a time zone name") }
        guard let bytes = readFile(directory + "/" + identifier) else {
            if identifier == "UTC" || identifier == "Etc/UTC" { return .utc }
            throw TimeZoneError("unknown time zone \"\(identifier)\"")
        }
        return try TimeZoneRules(identifier: identifier, tzif: bytes)
    }

    /// `Area/City` path segments of letters, digits, `_`, `-` and `+`: never a path
    /// that leaves the database.
    static func isWellFormed(_ identifier: String) -> Bool {
        let segments = identifier.split(separator: "/", omittingEmptySubsequences: false)
        return !identifier.isEmpty && identifier.utf8.count <= 64 && segments.allSatisfy { segment in
            !segment.isEmpty && segment != "." && segment != ".." && segment.utf8.allSatisfy { byte in
                (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
                    || byte == UInt8(ascii: ".")
            }
        }
    }

    private static func readFile(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            bytes.append(contentsOf: chunk[0..<count])
            // Zone files are a few kilobytes; anything far larger is not one.
            if count < chunk.count || bytes.count > 1 << 20 { break }
        }
        return ferror(file) == 0 ? bytes : nil
    }
}
