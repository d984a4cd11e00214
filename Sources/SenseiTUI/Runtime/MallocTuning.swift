#if canImport(Glibc)
import Glibc
#endif

/// glibc's allocator, tuned for a process left open for days: a sync parses
/// megabytes of JSON into many small objects, and glibc keeps what they
/// freed in per-thread arenas rather than give it back. At 10,000 sensors
/// that held 60 MB after each sync. One arena and a trim after each list load
/// keep the dashboard's memory that of what it shows. (`mallopt` and
/// `malloc_trim` are not in Swift's Glibc module: found with `dlsym`.)
enum MallocTuning {
    /// `M_ARENA_MAX` of malloc.h.
    private static let arenaMax: Int32 = -8

    /// At start, before a second thread runs (`SenseiCommand.prepareProcess`,
    /// from `main.swift`): one arena (or `count`), however many threads the
    /// pools run (the dashboard allocates little, and rarely from two threads
    /// at once).
    static func limitArenas(_ count: Int32 = 1) {
        #if canImport(Glibc)
        guard let symbol = dlsym(nil, "mallopt") else { return }
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        _ = unsafeBitCast(symbol, to: Mallopt.self)(arenaMax, count)
        #endif
    }

    /// Gives memory freed since back to the system.
    static func trim() {
        #if canImport(Glibc)
        guard let symbol = dlsym(nil, "malloc_trim") else { return }
        typealias Trim = @convention(c) (Int) -> Int32
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
        #endif
    }
}
