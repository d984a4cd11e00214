#if canImport(Glibc)
import Glibc
#endif

/// The process's own figures, read from /proc/self as Prometheus' standard
/// `process_*` metrics define them. nil where /proc cannot say (not Linux).
enum ProcessStats {
    /// Resident set size in bytes: the second field of /proc/self/statm, in pages.
    static func residentMemoryBytes() -> Int? {
        guard let statm = read("/proc/self/statm") else { return nil }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// When the process started, in seconds since the epoch: its start in
    /// clock ticks after boot (field 22 of /proc/self/stat) placed on the
    /// wall clock through CLOCK_BOOTTIME. Not /proc/stat's `btime`: the
    /// systemd unit's ProcSubset=pid hides everything in /proc but processes.
    static func startTimeSeconds() -> Double? {
        guard let stat = read("/proc/self/stat") else { return nil }
        // Field 2, the command name, is in parentheses and may hold spaces:
        // count fields from after its closing one (that is field 3).
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let ticks = Double(fields[19]) else { return nil }
        var now = timespec(), sinceBoot = timespec()
        guard clock_gettime(CLOCK_REALTIME, &now) == 0, clock_gettime(CLOCK_BOOTTIME, &sinceBoot) == 0 else { return nil }
        let boot = seconds(now) - seconds(sinceBoot)
        return boot + ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    private static func seconds(_ time: timespec) -> Double {
        Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// A small /proc file whole (their size reads as 0, so no stat first).
    private static func read(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = Glibc.read(descriptor, &buffer, buffer.count)
            guard count > 0 else { return count == 0 ? String(decoding: bytes, as: UTF8.self) : nil }
            bytes.append(contentsOf: buffer[0..<count])
        }
    }
}
