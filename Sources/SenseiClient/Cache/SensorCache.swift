import Foundation
import GRDB
import SenseiModels

/// The dashboard's local copy of one server: sensors in the user's order, their
/// readings, rollups of those readings for long charts, and when the last sync
/// succeeded. Everything the dashboard draws is read from here, so it works
/// offline; only `Syncer` writes readings into it.
///
/// A WAL `DatabasePool`: the list and detail reads never wait for a sync's writes.
public final class SensorCache: Sendable {
    public let path: String
    let pool: DatabasePool
    /// One line for the user when opening changed the file's version (an
    /// upgrade in place, or a rebuild); nil otherwise.
    public let upgradeNote: String?

    /// Opens (creating if needed) the cache file at `path`; its directory must exist.
    public init(path: String) throws {
        self.path = path
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        // `sensei list` may run beside a dashboard on the same file.
        configuration.busyMode = .timeout(5)
        // The dashboard reads from one queue, and a sync beside it: two
        // readers, each with its own page cache, not GRDB's default five.
        configuration.maximumReaderCount = 2
        configuration.label = "sensei-cache"
        pool = try DatabasePool(path: path, configuration: configuration)
        upgradeNote = try CacheSchema.apply(to: pool)
    }

    /// Opens the cache of the server at `serverURL` in the user's cache
    /// directory (see `CachePath`), creating the directory.
    public convenience init(serverURL: URL, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let directory = CachePath.directory(environment: environment)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try self.init(path: directory + "/" + CachePath.fileName(for: serverURL))
    }

    /// Closes the file; later calls fail.
    public func close() throws {
        try pool.close()
    }
}

/// Where caches live: `$XDG_CACHE_HOME/sensei/` (else `~/.cache/sensei/`), one
/// file per server named after its host and port.
public enum CachePath {
    public static func directory(environment: [String: String]) -> String {
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return xdg + "/sensei" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.cache/sensei"
    }

    /// `http://localhost:3000` → `localhost_3000.sqlite`; a path prefix joins
    /// the name (`host_443_sensei.sqlite`). Only `[A-Za-z0-9.-]` survive, so no
    /// URL can name a file outside the directory.
    public static func fileName(for url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? "http"
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        var parts = [url.host ?? "server", String(port)]
        let path = url.path.split(separator: "/").joined(separator: "_")
        if !path.isEmpty { parts.append(path) }
        let safe = parts.joined(separator: "_").unicodeScalars.map { scalar -> Character in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", ".", "-": Character(scalar)
            default: "_"
            }
        }
        var name = String(safe)
        if name.hasPrefix(".") { name = "_" + name.dropFirst() }
        return name + ".sqlite"
    }
}
