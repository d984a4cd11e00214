import ArgumentParser
import Foundation
import SenseiClient
import SenseiModels
import SenseiTransfer

/// `sensei import FILE…`: history from InfluxDB, Home Assistant or CSV.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import readings from line protocol, CSV or a Home Assistant database.",
        discussion: """
            Formats (told from the content, or --format):
              lp    InfluxDB line protocol, plain or gzip (influx_inspect export files too)
              csv   timestamp,value (with --sensor CODE) or sensor,timestamp,value
              home-assistant   a Home Assistant recorder database (schema 30 or later)

            Use an admin token: it creates sensors with names, units, kinds and labels. \
            A write token still imports the readings and leaves the sensors' metadata as it is. \
            Re-running an import stores nothing twice. Lines the server refuses are listed with \
            file and line number; the exit status is 1 when anything was refused or a file could \
            not be read to its end.
            """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "Files to import, in order.") var files: [String]
    @Option(help: "lp, csv or home-assistant (default: told from each file's content).") var format: String?
    @Option(help: "The sensor of a timestamp,value CSV.") var sensor: String?
    @Option(help: "The InfluxDB database name line protocol is written under, unless the file names one.")
    var database = "sensei"
    @Option(help: "Batches in flight at once.") var concurrency = 4

    func validate() throws {
        if let format, ImportFormat(rawValue: format) == nil {
            throw ValidationError("--format must be lp, csv or home-assistant, not '\(format)'")
        }
        if let sensor, let problem = SensorCode.problem(with: sensor) { throw ValidationError("--sensor: \(problem)") }
        guard (1...64).contains(concurrency) else { throw ValidationError("--concurrency must be 1 to 64") }
        guard !files.isEmpty else { throw ValidationError("name at least one file to import") }
    }

    func run() async throws {
        let config = try connection.resolve()
        guard let url = URL(string: config.url) else { throw ValidationError(ConfigError.invalidURL(config.url).description) }
        // Long timeouts: a batch waits for its group commit on a busy server.
        let client = APIClient(baseURL: url, token: config.token, timeout: 60)
        let run = ImportRun(client: client, format: format.flatMap(ImportFormat.init(rawValue:)), sensor: sensor,
                            database: database, concurrency: concurrency)
        let summary: ImportSummary
        do {
            summary = try await run.run(files, progress: ImportProgress())
        } catch let failure as SyncFailure {
            ReportSupport.note("import failed: \(failure.message)")
            throw ExitCode(2)
        } catch let fatal as BatchUploader.Fatal {
            ReportSupport.note("import stopped: \(fatal)")
            throw ExitCode(2)
        }
        print(summary.text, terminator: "")
        FileHandle.standardError.write(Data(summary.problems.utf8))
        if summary.failed { throw ExitCode(1) }
    }
}

/// `sensei export`: readings out as line protocol or CSV.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export raw readings as InfluxDB line protocol or CSV.",
        discussion: """
            Line protocol has nanosecond timestamps; InfluxDB 1.x and `sensei import` read it \
            back to the same readings. A sensor without a `measurement` label is measurement = \
            its code, field `value`, with its labels as tags. CSV is sensor,timestamp,value. \
            Bounds are inclusive (RFC 3339 or epoch seconds).
            """)

    @OptionGroup var connection: ConnectionOptions
    @Option(help: "Only sensors whose name, code or a label value contains TEXT (any case).") var filter: String?
    @Option(name: .customLong("label"), help: ArgumentHelp(
        "Only sensors with this label (repeatable: all must match).", valueName: "KEY:VALUE"))
    var labels: [String] = []
    @Option(help: "Readings at or after T (RFC 3339 or epoch seconds).") var after: String?
    @Option(help: "Readings at or before T (RFC 3339 or epoch seconds).") var before: String?
    @Option(help: "lp (line protocol) or csv.") var format = "lp"
    @Option(name: .shortAndLong, help: "Write to FILE instead of standard output.") var output: String?

    func validate() throws {
        for label in labels where SensorFilter.LabelSelector(label) == nil {
            throw ValidationError("--label takes KEY:VALUE, not '\(label)'")
        }
        guard ExportFormat(rawValue: format) != nil else { throw ValidationError("--format must be lp or csv, not '\(format)'") }
        for (name, value) in [("--after", after), ("--before", before)] {
            if let value, Timestamp(parameter: value) == nil {
                throw ValidationError("\(name) must be RFC 3339 or epoch seconds, not '\(value)'")
            }
        }
    }

    func run() async throws {
        let config = try connection.resolve()
        guard let url = URL(string: config.url) else { throw ValidationError(ConfigError.invalidURL(config.url).description) }
        let client = APIClient(baseURL: url, token: config.token, timeout: 60)
        var descriptor = STDOUT_FILENO
        if let output {
            descriptor = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw ExportError.cannotOpen(output, String(cString: strerror(errno))) }
        }
        defer { if descriptor != STDOUT_FILENO { close(descriptor) } }
        let writer = ExportWriter(format: ExportFormat(rawValue: format)!, descriptor: descriptor)
        let run = ExportRun(client: client,
                            filter: SensorFilter(text: filter ?? "", labels: labels.compactMap(SensorFilter.LabelSelector.init)),
                            after: after.flatMap(Timestamp.init(parameter:)), before: before.flatMap(Timestamp.init(parameter:)))
        let started = ContinuousClock.now
        do {
            let (sensors, points) = try await run.run(into: writer)
            ReportSupport.note("exported \(ImportProgress.count(points)) points of \(sensors) sensors in "
                               + "\(ReportSupport.seconds(since: started)) s")
        } catch let failure as SyncFailure {
            ReportSupport.note("export failed: \(failure.message)")
            throw ExitCode(2)
        }
    }
}
