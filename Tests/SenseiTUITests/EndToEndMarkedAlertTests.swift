import Foundation
import SenseiModels
import Testing
import SenseiTestSupport
@testable import SenseiTUI

/// Issue 38 with the real binaries: a sensor whose rule is firing on a real
/// server, marked for compare with space, keeps its `!` beside its number in
/// the list and in the compare legend; `u` on it (a temperature) says in the
/// status bar why there are no usage bars and how to get them.
@Suite("Marked firing sensor end to end", .serialized)
struct EndToEndMarkedAlertTests {
    @Test func aMarkedFiringSensorKeepsItsBangAndUSaysWhyNoUsage() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                let now = Timestamp.now().milliseconds
                try await server.post("porch", series(count: 12, every: 300_000, last: now - 60_000) { 20 + Double($0) / 4 })
                try await server.post("garage", series(count: 12, every: 300_000, last: now - 60_000) { 10 + Double($0) / 4 })
                #expect(try await server.admin.patch("/sensors/porch", json: #"{"units":"°C"}"#).status == 200)
                let created = try await server.admin.post("/alerts", json: #"""
                    {"name":"Porch too warm","sensor":"porch","condition":"above","threshold":30,"notify":["http://127.0.0.1:9/hook"]}
                    """#)
                #expect(created.status == 201)
                #expect(try await server.writer.post("/sensors/porch/data", json: #"{"value":35.5}"#).status == 201)
                try await eventually("the rule firing") {
                    try await server.admin.get("/alerts").text.contains(#""state":"firing""#)
                }

                // A refresh far away: no sync clears the status bar's message under the test.
                let tmux = try Tmux.dashboard(width: 100, height: 24, scratch: scratch, server: server,
                                              arguments: ["--refresh", "3600"])
                defer { tmux.kill() }
                try await tmux.waitFor { $0.contains("▸ !Porch") && $0.contains("● online · live") && $0.contains("synced") }
                try await tmux.send("Space")
                try await tmux.waitFor { $0.contains("▸1!Porch") }
                try await tmux.send("j", "Space")
                try await tmux.waitFor { $0.contains(" 1!Porch") && $0.contains("▸2 Garage") }

                try await tmux.send("c")
                let compare = try await tmux.waitFor { $0.contains("1 ⠒⠒⠒⠒ !Porch") }
                #expect(compare.contains("2 ⠒⠀⠒⠀ Garage"), "\(compare)")
                try await tmux.send("Escape")
                try await tmux.waitFor { $0.contains(" 1!Porch") && $0.contains("▸2 Garage") }

                try await tmux.send("k", "Enter")
                try await tmux.waitFor { $0.contains("Code     porch") }
                try await tmux.send("u")
                let refused = try await tmux.waitFor { $0.contains("usage needs a counter or units W/kW/MW") }
                #expect(refused.contains(#"PATCH /sensors/porch {"kind":"counter"}"#), "\(refused)")
                try await tmux.send("q")
                try await tmux.waitForExit()
            }
        }
    }
}
