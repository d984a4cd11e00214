import ArgumentParser
import Foundation
import SenseiModels

/// `sensei alerts`: every alert rule and where it stands, firing first; from
/// the cache (as last seen) when the server cannot be reached.
struct AlertsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alerts", abstract: "Print the alert rules: state, since when, the reading that moved them.")

    @OptionGroup var connection: ConnectionOptions
    @Flag(help: "Print JSON instead of a table.") var json = false

    func run() async throws {
        let (_, cache, syncer) = try connection.open()
        let (alerts, live) = await syncer.syncAlerts()
        if !live {
            let since = (try? cache.lastSync()).flatMap { $0 }.map { " (cache from \($0))" } ?? ""
            FileHandle.standardError.write(Data("sensei: server unreachable; showing the alerts last seen\(since)\n".utf8))
        }
        let context = ReportSupport.context()
        print(json ? TextReport.alertsJSON(alerts) : TextReport.alerts(alerts, context), terminator: "")
    }
}
