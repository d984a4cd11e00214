import ArgumentParser
import Foundation
import SenseiModels

#if canImport(Glibc)
import Glibc
#endif

/// `sensei list`: every sensor as a table (or JSON), from the cache after a sync.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Print the sensors: latest value, age, last 24 hours.")

    @OptionGroup var connection: ConnectionOptions
    @Option(help: "Only sensors whose name, code or a label value contains TEXT (any case).")
    var filter: String?
    @Option(name: .customLong("label"), help: ArgumentHelp(
        "Only sensors with this label (repeatable: all must match).", valueName: "KEY:VALUE"))
    var labels: [String] = []
    @Flag(help: "Print JSON instead of a table.") var json = false

    func validate() throws {
        for label in labels where SensorFilter.LabelSelector(label) == nil {
            throw ValidationError("--label takes KEY:VALUE, not '\(label)'")
        }
    }

    func run() async throws {
        let (_, cache, syncer) = try connection.open()
        await ReportSupport.syncOrWarn(syncer, cache: cache)
        let context = ReportSupport.context()
        let filter = SensorFilter(text: self.filter ?? "", labels: labels.compactMap(SensorFilter.LabelSelector.init))
        let sensors = try cache.sensorSummaries(now: context.now).filter { filter.matches($0.sensor) }
        print(json ? TextReport.listJSON(sensors, context) : TextReport.list(sensors, context), terminator: "")
    }
}

/// `sensei show CODE --range day`: statistics and a chart as text (or JSON).
struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Print one sensor's statistics and chart for a range.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The sensor's code (or id).") var code: String
    @Option(help: "The span the chart covers.") var range: TimeRange = .day
    @Option(help: "Chart width in columns.") var width = 80
    @Flag(help: "Print JSON instead of text.") var json = false

    func validate() throws {
        guard width >= 20 else { throw ValidationError("--width must be at least 20") }
    }

    func run() async throws {
        let (_, cache, syncer) = try connection.open()
        await ReportSupport.syncOrWarn(syncer, cache: cache)
        let context = ReportSupport.context()
        let sensors = try cache.sensorSummaries(now: context.now).map(\.sensor)
        guard let sensor = sensors.first(where: { $0.code == code || String($0.id) == code }) else {
            throw ValidationError("no sensor '\(code)' in the cache of this server")
        }
        guard let detail = try cache.detail(sensorId: sensor.id, range: range, now: context.now)
        else { throw ValidationError("no sensor '\(code)' in the cache of this server") }
        print(json ? TextReport.showJSON(detail) : TextReport.show(detail, context, width: width), terminator: "")
    }
}

enum ReportSupport {
    /// Syncs; when the server cannot be reached, says so on stderr and goes on
    /// with what the cache has.
    static func syncOrWarn(_ syncer: Syncer, cache: SensorCache) async {
        do throws(SyncError) {
            _ = try await syncer.sync()
        } catch {
            let since = (try? cache.lastSync()).flatMap { $0 }.map { " (cache from \($0))" } ?? " (nothing cached yet)"
            let reason: String
            switch error {
            case .server(let failure): reason = failure.message
            case .cache(let message): reason = "cache: \(message)"
            }
            FileHandle.standardError.write(Data("sensei: \(reason); showing the cache\(since)\n".utf8))
        }
    }

    static func context() -> TextReport.Context {
        setlocale(LC_ALL, "")
        return TextReport.Context(now: .now(), utcOffsetSeconds: LocalZone.offsetSeconds(),
                                  charset: Terminal.localeIsUTF8() ? .unicode : .ascii)
    }
}
