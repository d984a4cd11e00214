#if canImport(Glibc)
import Glibc
#endif
import SenseiModels

/// The machine's zone: its UTC offset now, for showing times in local time,
/// and its rules, for usage intervals (whose days may be 23 or 25 hours).
package enum LocalZone {
    package static func offsetSeconds(at epochSeconds: Int = Int(time(nil))) -> Int {
        var seconds = time_t(epochSeconds)
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return 0 }
        return Int(parts.tm_gmtoff)
    }

    /// The system's zone as the C library finds it: `$TZ` when it names a
    /// zone (`Europe/Berlin`, `:Europe/Berlin`), else `/etc/localtime` when it
    /// links into the database, else `/etc/timezone`'s name, else
    /// `/etc/localtime`'s rules unnamed (the server cannot take those: the
    /// config file's `tz` then names the zone), else UTC.
    package static func rules(environment: [String: String]) -> TimeZoneRules {
        if var name = environment["TZ"], !name.isEmpty {
            if name.hasPrefix(":") { name.removeFirst() }
            if let zone = try? TimeZoneRules.named(name) { return zone }
        }
        if let name = linkedZoneName("/etc/localtime"), let zone = try? TimeZoneRules.named(name) { return zone }
        // Debian names the zone here too; a name is what the server's `tz` takes.
        if let bytes = readFile("/etc/timezone"),
           let name = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isWhitespace).first,
           let zone = try? TimeZoneRules.named(String(name)) { return zone }
        if let bytes = readFile("/etc/localtime"),
           let zone = try? TimeZoneRules(identifier: "localtime", tzif: bytes) { return zone }
        return .utc
    }

    /// `Europe/Berlin` for a link to `…/zoneinfo/Europe/Berlin`.
    private static func linkedZoneName(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let range = target.range(of: "zoneinfo/") else { return nil }
        return String(target[range.upperBound...])
    }

    private static func readFile(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes = [UInt8](repeating: 0, count: 1 << 16)
        let count = fread(&bytes, 1, bytes.count, file)
        return count > 0 ? Array(bytes[0..<count]) : nil
    }
}
