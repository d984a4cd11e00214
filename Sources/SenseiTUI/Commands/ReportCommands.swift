import ArgumentParser
import Foundation
import SenseiModels

#if canImport(Glibc)
import Glibc
import SenseiClient
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
    /// For the benchmark (bench/dashboard-year.sh): when the list could show,
    /// and when the sync ended, on stderr.
    @Flag(help: .hidden) var timings = false

    func validate() throws {
        for label in labels where SensorFilter.LabelSelector(label) == nil {
            throw ValidationError("--label takes KEY:VALUE, not '\(label)'")
        }
    }

    func run() async throws {
        let (_, cache, syncer) = try connection.open()
        let started = ContinuousClock.now
        let timings = self.timings
        await ReportSupport.syncOrWarn(syncer, cache: cache) { done, total in
            // What the dashboard's first screen needs: the sensors in the cache, read back.
            guard timings, done == 0, (try? cache.sensorSummaries(now: .now())) != nil else { return }
            ReportSupport.note("list ready after \(ReportSupport.seconds(since: started)) s (\(total) sensors)")
        }
        if timings { ReportSupport.note("synced after \(ReportSupport.seconds(since: started)) s") }
        let context = ReportSupport.context()
        let filter = SensorFilter(text: self.filter ?? "", labels: labels.compactMap(SensorFilter.LabelSelector.init))
        let sensors = try cache.sensorSummaries(now: context.now).filter { filter.matches($0.sensor) }
        print(json ? TextReport.listJSON(sensors, context) : TextReport.list(sensors, context), terminator: "")
    }
}

/// `sensei show CODE --range day`: statistics and a chart as text (or JSON);
/// `sensei show A B [C D]`: up to four sensors on one chart, with a legend;
/// `sensei show CODE --usage`: the sensor's usage bars and total (or the intervals as JSON).
struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Print a sensor's statistics and chart for a range (or its usage), or up to four on one chart.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The sensor's code (or id); two to four overlay on one chart.") var codes: [String]
    @Option(help: "The span the chart (or the usage bars) covers.") var range: TimeRange = .day
    @Option(help: "Chart width in columns.") var width = 80
    @Flag(help: ArgumentHelp(
        "Print the sensor's usage instead: bars per hour for a day, per day for a week or a month, per month for a year or all time, in the local time zone (tz in the config file), with the range's total; with --json, the intervals.",
        discussion: "Usage is a counter's increase (kWh, resets counted from 0) or a gauge's time integral (W -> Wh), as the server's usage route counts it."))
    var usage = false
    @Flag(help: "Print JSON instead of text.") var json = false

    func validate() throws {
        guard width >= 20 else { throw ValidationError("--width must be at least 20") }
        guard (1...4).contains(codes.count) else { throw ValidationError("name one to four sensors") }
        guard !usage || codes.count == 1 else { throw ValidationError("--usage shows one sensor") }
    }

    func run() async throws {
        if usage { return try await runUsage() }
        let (_, cache, syncer) = try connection.open()
        await ReportSupport.syncOrWarn(syncer, cache: cache)
        let context = ReportSupport.context()
        let sensors = try cache.sensorSummaries(now: context.now).map(\.sensor)
        let details = try codes.map { code in
            guard let sensor = sensors.first(where: { $0.code == code || String($0.id) == code }),
                  let detail = try cache.detail(sensorId: sensor.id, range: range, now: context.now) else {
                throw ValidationError("no sensor '\(code)' in the cache of this server")
            }
            return detail
        }
        let text: String
        switch (details.count, json) {
        case (1, false): text = TextReport.show(details[0], context, width: width)
        case (1, true): text = TextReport.showJSON(details[0])
        case (_, false): text = TextReport.compare(details, context, width: width)
        case (_, true): text = "[" + details.map { TextReport.showJSON($0).dropLast() }.joined(separator: ",") + "]\n"
        }
        print(text, terminator: "")
    }
}

extension ShowCommand {
    /// The usage report fetched for the range (kept in the cache), or the
    /// cache's when the server is away.
    func runUsage() async throws {
        let zone = try connection.zone()
        let (_, cache, syncer) = try connection.open()
        await ReportSupport.syncOrWarn(syncer, cache: cache)
        let context = ReportSupport.context()
        let code = codes[0]
        guard let sensor = try cache.sensors().first(where: { $0.code == code || String($0.id) == code }) else {
            throw ValidationError("no sensor '\(code)' in the cache of this server")
        }
        let oldest = range == .all ? try cache.oldestKept(sensorId: sensor.id) : nil
        guard let usage = await syncer.syncUsage(for: sensor, range: range, zone: zone, now: context.now,
                                                 oldest: oldest) else {
            throw ValidationError("no usage of '\(code)' for the last \(range.title) cached, and the server is not answering")
        }
        guard let report = usage.report else {
            throw ValidationError("usage unavailable: the server has no usage route (older than Sensei 1.2)")
        }
        let text = json ? TextReport.usageJSON(report)
            : TextReport.usage(report, sensor: sensor, range: range, zone: zone, context, width: width)
        print(text, terminator: "")
    }
}

enum ReportSupport {
    /// Syncs; when the server cannot be reached, says so on stderr and goes on
    /// with what the cache has.
    static func syncOrWarn(_ syncer: Syncer, cache: SensorCache,
                           progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }) async {
        do throws(SyncError) {
            _ = try await syncer.sync(progress: progress)
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

    static func note(_ text: String) {
        FileHandle.standardError.write(Data("sensei: \(text)\n".utf8))
    }

    /// Seconds since `start`, to the millisecond.
    static func seconds(since start: ContinuousClock.Instant) -> String {
        let elapsed = ContinuousClock.now - start
        return String(format: "%.3f", Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    static func context() -> TextReport.Context {
        setlocale(LC_ALL, "")
        return TextReport.Context(now: .now(), utcOffsetSeconds: LocalZone.offsetSeconds(),
                                  charset: Terminal.localeIsUTF8() ? .unicode : .ascii)
    }
}
