import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `sensei` (or `sensei dashboard`): the interactive screen.
struct DashboardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dashboard", abstract: "The interactive dashboard (the default).")

    @OptionGroup var connection: ConnectionOptions

    @Option(help: "Seconds between background syncs.")
    var refresh = 30

    /// The benchmark's measure (`FrameLog`): not for people.
    @Option(name: .customLong("frame-log"), help: .hidden)
    var frameLog: String?

    func validate() throws {
        guard refresh >= 1 else { throw ValidationError("--refresh must be at least 1 second") }
    }

    func run() throws {
        let (config, cache, syncer) = try connection.open()
        // Before the screen is taken: a bad tz in the config is said plainly.
        let zone = try connection.zone()
        guard isatty(STDOUT_FILENO) == 1 else {
            throw ValidationError("the dashboard needs a terminal; use 'sensei list' or 'sensei show' in scripts")
        }
        // Before initscr: ncurses reads the locale once, and braille needs UTF-8.
        setlocale(LC_ALL, "")
        let terminal = Terminal()
        defer { terminal.close() }
        let inbox = Inbox()
        let runner = CommandRunner(cache: cache, syncer: syncer, deliver: inbox.post)
        defer { runner.stopLive() }
        DashboardLoop(terminal: terminal, inbox: inbox, serverName: config.serverName, refreshSeconds: refresh, zone: zone,
                      frameLog: frameLog.flatMap(FrameLog.init(path:)))
            .run(perform: runner.run)
    }
}
