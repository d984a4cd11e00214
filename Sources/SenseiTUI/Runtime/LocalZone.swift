#if canImport(Glibc)
import Glibc
#endif

/// The machine's UTC offset now, for showing times in local time.
enum LocalZone {
    static func offsetSeconds(at epochSeconds: Int = Int(time(nil))) -> Int {
        var seconds = time_t(epochSeconds)
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return 0 }
        return Int(parts.tm_gmtoff)
    }
}
