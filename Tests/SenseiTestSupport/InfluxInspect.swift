import Foundation

/// InfluxDB 1.x's real `influx_inspect`, whose `export` writes the files a
/// house moves out of InfluxDB with. Debian ships `influxd` without it;
/// `scripts/influx-inspect.sh` builds it from Debian's own influxdb source
/// into `.build/influx-inspect/` (scripts/test.sh runs it first), or
/// `$INFLUX_INSPECT` names one.
package enum InfluxInspect {
    package static var executable: String? {
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().path
        let candidates = [ProcessInfo.processInfo.environment["INFLUX_INSPECT"],
                          packageRoot + "/.build/influx-inspect/influx_inspect",
                          "/usr/bin/influx_inspect", "/usr/local/bin/influx_inspect"]
        return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// `influx_inspect export` of one database of a running influxd's
    /// directories (the WAL included, so nothing needs flushing first).
    package static func export(_ influx: InfluxDBServer, database: String, to path: String,
                               compress: Bool) throws -> ToolResult {
        guard let executable else {
            throw InfluxDBUnavailable(description: "no influx_inspect: run scripts/influx-inspect.sh (or set INFLUX_INSPECT)")
        }
        var arguments = ["export", "-datadir", influx.directory + "/data", "-waldir", influx.directory + "/wal",
                         "-database", database, "-out", path]
        if compress { arguments.append("-compress") }
        return try runTool(executable, arguments, timeout: 120)
    }
}
