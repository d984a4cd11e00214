import ArgumentParser
import Foundation
import SenseiClient
import SenseiModels

/// `sensei`: the dashboard by default, or `list` / `show` / `watch` / `alerts` for scripts,
/// `import` / `export` to move history in and out.
public struct SenseiCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "sensei",
        abstract: "Watch a Sensei server's sensors in the terminal, from a local cache that works offline.",
        subcommands: [DashboardCommand.self, ListCommand.self, ShowCommand.self, WatchCommand.self, AlertsCommand.self,
                      ImportCommand.self, ExportCommand.self],
        defaultSubcommand: DashboardCommand.self)

    public init() {}

    /// Before a second thread runs (from `main.swift`): one malloc arena for
    /// the whole process. Set later (in a command's `run`, on a pool thread),
    /// the arenas the runtime's threads already made stay in use, and each
    /// keeps what was freed in it: a batch is read on one thread and freed on
    /// another. Importing 2,000,000 points peaked at 46.8–50.4 MiB with the
    /// limit set in `run`, 45.9–46.9 MiB with it set first, as fast.
    public static func prepareProcess() {
        MallocTuning.limitArenas(1)
    }

    /// Parses the arguments and runs the command. (Top-level code calling
    /// `main()` gets `ParsableCommand`'s synchronous one, which runs no async
    /// command; in an async function the async overload is chosen.)
    public static func runAsRoot() async {
        await main(nil)
    }
}

/// Which server, with which token: flags, else `SENSEI_URL`/`SENSEI_TOKEN`,
/// else the config file.
struct ConnectionOptions: ParsableArguments {
    @Option(help: "Server URL, e.g. http://pi.local:3000 (or SENSEI_URL).")
    var url: String?

    @Option(help: "Bearer token with read scope (or SENSEI_TOKEN). Prefer the config file: flags show in ps.")
    var token: String?

    @Option(name: .customLong("raw-days"), help: ArgumentHelp(
        "Days of raw readings the cache keeps (older history as minute and hour aggregates; default 3, or raw_days in the config file).",
        valueName: "N"))
    var rawDays: Int?

    /// The configuration; asks on a terminal when nothing is configured.
    func resolve() throws -> DashboardConfig {
        let environment = ProcessInfo.processInfo.environment
        let path = DashboardConfig.defaultPath(environment: environment)
        if let config = try DashboardConfig.resolve(url: url, token: token, environment: environment, configPath: path) {
            return config
        }
        if let config = try FirstRunPrompt.ask(configPath: path, prefilledURL: url, prefilledToken: token) {
            return config
        }
        throw ValidationError(ConfigError.notConfigured(configPath: path).description)
    }

    /// The zone usage is counted in: `tz` in the config file, else the system's.
    func zone() throws -> TimeZoneRules {
        let environment = ProcessInfo.processInfo.environment
        do {
            return try DashboardConfig.timeZone(configPath: DashboardConfig.defaultPath(environment: environment),
                                                environment: environment)
        } catch let error as ConfigError {
            throw ValidationError(error.description)
        }
    }

    /// The cache of the configured server and a syncer for it. A cache
    /// upgraded or rebuilt on opening says so, in one line on stderr.
    func open() throws -> (DashboardConfig, SensorCache, Syncer) {
        let config = try resolve()
        guard let url = URL(string: config.url) else { throw ValidationError(ConfigError.invalidURL(config.url).description) }
        let cache = try SensorCache(serverURL: url)
        if let note = cache.upgradeNote { FileHandle.standardError.write(Data("sensei: \(note)\n".utf8)) }
        let rawDays = try self.rawDays ?? DashboardConfig.rawDays(configPath: DashboardConfig.defaultPath(
            environment: ProcessInfo.processInfo.environment)) ?? Syncer.defaultRawDays
        guard rawDays >= 1 else { throw ValidationError("--raw-days must be at least 1") }
        return (config, cache, Syncer(client: APIClient(baseURL: url, token: config.token), cache: cache,
                                      rawDays: rawDays, minuteDays: max(Syncer.defaultMinuteDays, rawDays + 5)))
    }
}
