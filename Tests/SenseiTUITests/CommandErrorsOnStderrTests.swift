import Foundation
import SenseiModels
import SenseiTestSupport
import Testing
@testable import SenseiTUI

/// Scripts read a command's stdout, so errors and warnings go to stderr, for
/// every `sensei` command: the real binary, as a child process, its two
/// streams apart. Issue 38: `sensei import` printed "Error: …: cannot open"
/// (and its refused lines) on stdout.
@Suite struct CommandErrorsOnStderrTests {
    @Test func importSaysWhatWentInOnStdoutAndWhatWentWrongOnStderr() async throws {
        try await withScratch { scratch in
            try FileManager.default.createDirectory(atPath: scratch.root, withIntermediateDirectories: true)
            let good = scratch.root + "/house.lp"
            try Data("room,name=den temp=21.5 1704067200000000000\nroom,name=den 1704067290000000000\n".utf8)
                .write(to: URL(fileURLWithPath: good))
            let absent = scratch.root + "/absent.lp"
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                let run = try await runSensei(["import", good, absent], environment: [
                    "XDG_CONFIG_HOME=\(scratch.root)/config", "SENSEI_URL=\(server.url.absoluteString)",
                    "SENSEI_TOKEN=\(server.adminToken)",
                ])
                #expect(run.status == 1)
                #expect(run.output.hasPrefix("Imported 1 points from 2 files in "), "\(run.output)")
                #expect(!run.output.contains("Error") && !run.output.contains("Refused"), "\(run.output)")
                #expect(run.error.contains("Error: \(absent): cannot open: No such file or directory\n"), "\(run.error)")
                #expect(run.error.contains("Refused 1 line:\n  \(good):2: "), "\(run.error)")
            }
        }
    }

    @Test func reportsAndTheStreamSayTheirErrorsOnStderr() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                try await server.post("porch", [(Timestamp.now().milliseconds - 10_000, 7)])
                let environment = ["XDG_CACHE_HOME=\(scratch.root)/cache", "XDG_CONFIG_HOME=\(scratch.root)/config",
                                   "SENSEI_URL=\(server.url.absoluteString)", "SENSEI_TOKEN=\(server.readToken)"]
                let show = try await runSensei(["show", "nope"], environment: environment)
                expectOnStderr(show, "Error: no sensor 'nope' in the cache of this server")
                let watch = try await runSensei(["watch", "nope"], environment: environment)
                expectOnStderr(watch, "Error: ")
                let export = try await runSensei(["export", "-o", scratch.root + "/no/such/dir.lp"], environment: environment)
                expectOnStderr(export, "Error: ")
                let badFormat = try await runSensei(["export", "--format", "xml"], environment: environment)
                expectOnStderr(badFormat, "Error: --format must be lp or csv, not 'xml'")
                // Not a terminal: stdout is the test's pipe.
                let dashboard = try await runSensei([], environment: environment)
                expectOnStderr(dashboard, "the dashboard needs a terminal")
            }
            // No server there: the cache (of that URL: empty) answers on stdout, the warning is on stderr.
            let offline = ["XDG_CACHE_HOME=\(scratch.root)/cache", "XDG_CONFIG_HOME=\(scratch.root)/config",
                           "SENSEI_URL=http://127.0.0.1:9", "SENSEI_TOKEN=x"]
            let list = try await runSensei(["list"], environment: offline)
            #expect(list.status == 0)
            #expect(!list.output.contains("sensei:") && !list.output.contains("unreachable"), "\(list.output)")
            #expect(list.error.hasPrefix("sensei: server unreachable"), "\(list.error)")
            let alerts = try await runSensei(["alerts"], environment: offline)
            #expect(alerts.status == 0)
            #expect(!alerts.output.contains("sensei:") && !alerts.output.contains("unreachable"), "\(alerts.output)")
            #expect(alerts.error.contains("showing the alerts last seen"), "\(alerts.error)")
        }
    }

    /// A failed command: non-zero, nothing on stdout, `message` on stderr.
    private func expectOnStderr(_ run: (status: Int32, output: String, error: String), _ message: String,
                                sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status != 0, sourceLocation: sourceLocation)
        #expect(run.output.isEmpty, "stdout: \(run.output)", sourceLocation: sourceLocation)
        #expect(run.error.contains(message), "stderr: \(run.error)", sourceLocation: sourceLocation)
    }
}
