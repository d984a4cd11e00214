import Foundation
import SenseiModels
import Testing
import SenseiTestSupport
@testable import SenseiTUI
@testable import SenseiClient

/// The real `sensei` binary in a real terminal (tmux), against a real server on
/// loopback: what a person sees after opening a sensor and switching ranges.
@Suite("Dashboard end to end in tmux", .serialized)
struct EndToEndTests {
    @Test func openASensorSwitchRangesAndQuit() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                let now = Timestamp.now().milliseconds
                // A day of 5-minute readings ending a minute ago: 12 in the last hour.
                try await server.post("temperature_ext", series(count: 288, every: 300_000, last: now - 60_000) { i in
                    20 + Double(i % 12) / 4
                })
                _ = try server.application.store.updateSensor(
                    .code("temperature_ext"), name: "External Temperature", units: "°C", valueType: nil)
                try await server.post("humidity", [(now - 30_000, 55)])

                let tmux = try Tmux.dashboard(width: 100, height: 30, scratch: scratch, server: server)
                defer { tmux.kill() }

                let list = try await tmux.waitFor { $0.contains("External Temperature") && $0.contains("online") }
                #expect(list.contains("Humidity"))
                #expect(list.contains("22.75 °C"))  // the newest reading: 20 + 11/4
                #expect(list.contains("▸  External Temperature"))

                try await tmux.send("Enter")
                let day = try await tmux.waitFor { $0.contains("Count    288") }
                #expect(day.contains("1 hour  2 day  3 week  4 month  5 year  6 all"))
                #expect(day.contains("Code     temperature_ext"))
                #expect(day.range(of: #"\d\d:\d\d\s+\d\d:\d\d"#, options: .regularExpression) != nil)  // hour labels
                #expect(day.contains("⠀") || day.unicodeScalars.contains { (0x2801...0x28FF).contains($0.value) })

                try await tmux.send("1")
                let hour = try await tmux.waitFor { $0.contains("Count    12") }
                #expect(hour.contains("Max      22.75 °C"))

                try await tmux.send("w")
                let week = try await tmux.waitFor {
                    $0.range(of: #"(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d\d"#, options: .regularExpression) != nil
                }
                #expect(week.contains("Count    288"))

                try await tmux.send("Escape", "Escape")
                _ = try await tmux.waitFor { $0.contains("Last 24 h") }
                try await tmux.send("q")
                try await tmux.waitForExit()
            }
        }
    }

    @Test func firstRunAsksForServerAndTokenAndSavesThem() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                try await server.post("porch", [(Timestamp.now().milliseconds - 5_000, 3)])
                let tmux = try Tmux(width: 90, height: 20, command: [
                    "env", "-u", "SENSEI_URL", "-u", "SENSEI_TOKEN", "XDG_CACHE_HOME=\(scratch.root)/cache",
                    "XDG_CONFIG_HOME=\(scratch.root)/config", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "TERM=xterm-256color",
                    TestBinaries.path("sensei"),
                ])
                defer { tmux.kill() }
                try await tmux.waitFor { $0.contains("Server URL [http://localhost:3000]:") }
                try await tmux.send("-l", server.url.absoluteString)
                try await tmux.send("Enter")
                try await tmux.waitFor { $0.contains("Token") }
                try await tmux.send("-l", server.readToken)
                try await tmux.send("Enter")
                _ = try await tmux.waitFor { $0.contains("Porch") && $0.contains("online") }
                try await tmux.send("q")
                try await tmux.waitForExit()

                let path = scratch.root + "/config/sensei/config"
                let saved = try DashboardConfig.resolve(url: nil, token: nil, environment: [:], configPath: path)
                #expect(saved == DashboardConfig(url: server.url.absoluteString, token: server.readToken))
                let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
                #expect(permissions == 0o600)
            }
        }
    }

    @Test func listAndShowPrintFromTheCacheAfterASync() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                let now = Timestamp.now().milliseconds
                try await server.post("porch", series(count: 12, every: 300_000, last: now - 60_000) { Double($0) })
                let environment = ["XDG_CACHE_HOME=\(scratch.root)/cache", "XDG_CONFIG_HOME=\(scratch.root)/config",
                                   "SENSEI_URL=\(server.url.absoluteString)", "SENSEI_TOKEN=\(server.readToken)"]
                let list = try await runSensei(["list"], environment: environment + ["LC_ALL=C.UTF-8"])
                #expect(list.status == 0)
                #expect(list.output.hasPrefix("CODE   NAME   VALUE  UPDATED  LAST 24 H\nporch  Porch  11     1m ago"))

                let json = try await runSensei(["list", "--json"], environment: environment)
                #expect(json.output.contains(#""code":"porch","name":"Porch","units":"","valueType":"float","latest":{"#))

                // A non-UTF-8 locale gets an ASCII chart.
                let show = try await runSensei(["show", "porch", "--range", "hour", "--width", "50"],
                                         environment: environment + ["LC_ALL=C"])
                #expect(show.status == 0)
                #expect(show.output.hasPrefix("Porch (porch), last 1 hour\ncurrent  11  1m ago\ncount    12\n"))
                #expect(show.output.utf8.allSatisfy { $0 < 0x80 })
                #expect(try await runSensei(["show", "nope"], environment: environment).status != 0)
            }
            // Offline: the cache answers, and stderr says why it is not fresh.
            let offline = try await runSensei(["list"], environment: [
                "XDG_CACHE_HOME=\(scratch.root)/cache", "SENSEI_URL=http://127.0.0.1:9", "SENSEI_TOKEN=x",
            ])
            #expect(offline.status == 0)
            #expect(offline.error.hasPrefix("sensei: server unreachable"))
        }
    }

    @Test func offlineShowsTheCacheAndSaysSince() async throws {
        try await withScratch { scratch in
            let environment = ["XDG_CACHE_HOME=\(scratch.root)/cache", "XDG_CONFIG_HOME=\(scratch.root)/config",
                               "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "TERM=xterm-256color"]
            var url = ""
            var token = ""
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                try await server.post("porch", [(Timestamp.now().milliseconds - 10_000, 7)])
                url = server.url.absoluteString
                token = server.readToken
                // A first run fills the cache.
                let first = try Tmux(width: 80, height: 20,
                                     command: ["env"] + environment + [TestBinaries.path("sensei"), "--url", url, "--token", token])
                defer { first.kill() }
                _ = try await first.waitFor { $0.contains("Porch") && $0.contains("online") }
                try await first.send("q")
                try await first.waitForExit()
            }
            // The server is gone: the cache still shows the sensor, and says offline.
            let second = try Tmux(width: 80, height: 20,
                                  command: ["env"] + environment + [TestBinaries.path("sensei"), "--url", url, "--token", token])
            defer { second.kill() }
            let offline = try await second.waitFor { $0.contains("offline since") }
            #expect(offline.contains("Porch"))
            #expect(offline.contains("7"))
            try await second.send("q")
            try await second.waitForExit()
        }
    }
}

/// Runs the built `sensei` with `environment` ("NAME=value") added: (status, stdout, stderr).
func runSensei(_ arguments: [String], environment: [String]) async throws -> (status: Int32, output: String, error: String) {
    var variables: [String: String] = [:]
    for pair in environment {
        let parts = pair.split(separator: "=", maxSplits: 1)
        variables[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
    }
    let result = try await runTool(TestBinaries.path("sensei"), arguments, timeout: 60, environment: variables)
    return (result.status, result.output, result.error)
}
