import Foundation
import SenseiModels
import Testing
import SenseiTestSupport
@testable import SenseiTUI
@testable import SenseiClient

/// Alerts live, with the real binaries: a rule created while the dashboard
/// runs shows in `a` without a key press; a reading over its threshold marks
/// the sensor `!` and one back under clears it, as the stream brings them (no
/// sync: the refresh is an hour away); `sensei watch` prints both transitions.
@Suite("Live alerts end to end", .serialized)
struct EndToEndLiveAlertsTests {
    @Test func aRuleCreatedFiringAndResolvingShowsLiveAndInTheWatch() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                let now = Timestamp.now().milliseconds
                try await server.post("porch", series(count: 12, every: 300_000, last: now - 60_000) { 20 + Double($0) / 4 })
                #expect(try await server.admin.patch("/sensors/porch", json: #"{"units":"°C"}"#).status == 200)

                let watchOutput = scratch.root + "/watch.out"
                _ = FileManager.default.createFile(atPath: watchOutput, contents: nil)
                let watch = Process()
                watch.executableURL = URL(fileURLWithPath: TestBinaries.path("sensei"))
                watch.arguments = ["watch", "porch"]
                watch.environment = ProcessInfo.processInfo.environment.merging([
                    "SENSEI_URL": server.url.absoluteString, "SENSEI_TOKEN": server.readToken,
                    "XDG_CONFIG_HOME": scratch.root + "/config",
                ]) { $1 }
                watch.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: watchOutput))
                watch.standardError = FileHandle.nullDevice
                watch.standardInput = FileHandle.nullDevice
                try watch.run()
                defer { stop(watch) }
                func watched() -> String { (try? String(contentsOfFile: watchOutput, encoding: .utf8)) ?? "" }

                // A refresh far away: only the stream can bring the changes in time.
                let tmux = try Tmux.dashboard(width: 100, height: 24, scratch: scratch, server: server, arguments: ["--refresh", "3600"])
                defer { tmux.kill() }
                try await tmux.waitFor { $0.contains("Porch") && $0.contains("● online · live") && $0.contains("synced") }
                // The watch follows the stream once a reading posted now shows in it.
                var posted = 0.0
                try await eventually("the watch printing", seconds: 30) {
                    posted += 0.01
                    let status = try await server.writer.post("/sensors/porch/data", json: #"{"value":\#(20 + posted)}"#).status
                    return status == 201 && watched().contains(" porch ")
                }

                try await tmux.send("a")
                try await tmux.waitFor { $0.contains("No alert rules on this server.") }
                let created = try await server.admin.post("/alerts", json: #"""
                    {"name":"Porch too warm","sensor":"porch","condition":"above","threshold":30,"notify":["http://127.0.0.1:9/hook"]}
                    """#)
                #expect(created.status == 201)
                try await tmux.waitFor { $0.contains("Porch too warm  porch") && $0.contains("none firing") }
                try await tmux.send("Escape")
                try await tmux.waitFor { $0.contains(" Porch") && !$0.contains("!Porch") }

                let over = Date()
                #expect(try await server.writer.post("/sensors/porch/data", json: #"{"value":35.5}"#).status == 201)
                try await tmux.waitFor { $0.contains("!Porch") }
                print("live alerts end to end: the ! mark showed \(Int(Date().timeIntervalSince(over) * 1000)) ms after the reading")
                // The stream's change is in the cache before it is on screen (offline marks, the next start).
                let cache = try SensorCache(path: scratch.root + "/cache/sensei/" + CachePath.fileName(for: server.url))
                #expect(try cache.cachedAlerts().map(\.state) == [.firing])
                try cache.close()
                try await eventually("the watch printing the firing") {
                    watched().contains(" porch alert firing: Porch too warm (35.5 °C, above 30)\n")
                }

                let under = Date()
                #expect(try await server.writer.post("/sensors/porch/data", json: #"{"value":21.5}"#).status == 201)
                try await tmux.waitFor { $0.contains(" Porch") && !$0.contains("!Porch") }
                print("live alerts end to end: the ! mark cleared \(Int(Date().timeIntervalSince(under) * 1000)) ms after the reading")
                try await eventually("the watch printing the resolution") {
                    watched().contains(" porch alert ok: Porch too warm (21.5 °C, above 30)\n")
                }
                // The rules' screen agrees.
                try await tmux.send("a")
                try await tmux.waitFor { $0.contains("Porch too warm  porch") && $0.contains("none firing") && $0.contains("21.5") }
                try await tmux.send("q")
                try await tmux.waitForExit()
            }
        }
    }
}
