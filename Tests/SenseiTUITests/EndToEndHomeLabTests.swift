import Foundation
import SenseiModels
import Testing
import SenseiTestSupport
@testable import SenseiTUI

/// The real `sensei` in tmux against a real server, the way a home lab uses
/// it: find a sensor by typing, group by room, see a firing alert marked,
/// compare two sensors, zoom, and watch a posted reading arrive live.
@Suite("Dashboard home lab end to end in tmux", .serialized)
struct EndToEndHomeLabTests {
    @Test func filterGroupAlertCompareZoomAndLive() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                let now = Timestamp.now().milliseconds
                try await server.post("porch_temp", series(count: 48, every: 300_000, last: now - 60_000) { 10 + Double($0) / 8 })
                try await server.post("bath_hum", series(count: 48, every: 300_000, last: now - 60_000) { 50 + Double($0 % 6) })
                try await server.post("front_door", [(now - 3_600_000, 0)])
                for (code, body) in [
                    ("porch_temp", #"{"name":"Porch temperature","units":"°C","labels":{"room":"outside"}}"#),
                    ("bath_hum", #"{"name":"Bathroom humidity","units":"%","labels":{"room":"bathroom"}}"#),
                    ("front_door", #"{"name":"Front door","valueType":"bool","labels":{"room":"outside"}}"#),
                ] {
                    #expect(try await server.admin.patch("/sensors/\(code)", json: body).status == 200)
                }
                #expect(try await server.admin.post("/alerts", json: #"""
                    {"name":"Door open","sensor":"front_door","condition":"above","threshold":0.5,"notify":["http://127.0.0.1:9/hook"]}
                    """#).status == 201)

                let tmux = try Tmux.dashboard(width: 110, height: 30, scratch: scratch, server: server)
                defer { tmux.kill() }
                _ = try await tmux.waitFor { $0.contains("Porch temperature") && $0.contains("live") }

                // Find by typing: the prompt filters as it goes; Enter keeps, Esc clears.
                try await tmux.send("/")
                try await tmux.send("-l", "bath")
                let filtered = try await tmux.waitFor { $0.contains("/bath") && $0.contains("1 of 3 sensors") }
                #expect(filtered.contains("Bathroom humidity") && !filtered.contains("Porch temperature"))
                try await tmux.send("Enter")
                _ = try await tmux.waitFor { !$0.contains("/bath") && $0.contains("1 of 3 sensors") }
                try await tmux.send("Escape")
                _ = try await tmux.waitFor { $0.contains("3 sensors") && !$0.contains("of 3") }

                // Group by room: a header per room.
                try await tmux.send("g")
                let grouped = try await tmux.waitFor { $0.contains("room: outside (2)") }
                #expect(grouped.contains("room: bathroom (1)") && grouped.contains("by room"))
                try await tmux.send("g")
                _ = try await tmux.waitFor { !$0.contains("room: outside") }

                // The door opens: its rule fires and the list marks it after a sync.
                try await server.post("front_door", [(Timestamp.now().milliseconds - 1_000, 1)])
                try await eventually("the rule firing") {
                    try await server.reader.get("/alerts").json["alerts"]?[0]?["state"]?.stringValue == "firing"
                }
                try await tmux.send("r")
                _ = try await tmux.waitFor { $0.contains("!Front door") }
                try await tmux.send("a")
                let alerts = try await tmux.waitFor { $0.contains("1 firing") }
                #expect(alerts.contains("firing  Door open  front_door"))
                try await tmux.send("Escape")

                // Compare the porch and the bathroom on one chart.
                try await tmux.send("k", "k", "k", "Space", "j", "Space", "c")
                let compare = try await tmux.waitFor { $0.contains("1 ⠒⠒⠒⠒ Porch temperature") }
                #expect(compare.contains("2 ⠒⠀⠒⠀ Bathroom humidity"))
                try await tmux.send("Escape")

                // Zoom into the porch's day, then a reading posted through the API shows live.
                try await tmux.send("k", "k", "k", "Enter")
                _ = try await tmux.waitFor { $0.contains("Code     porch_temp") }
                try await tmux.send("+")
                _ = try await tmux.waitFor { $0.contains("zoom 12h (0 resets)") }
                try await tmux.send("0")
                _ = try await tmux.waitFor { !$0.contains("zoom 12h") }
                let posted = try await server.writer.post("/sensors/porch_temp/data", json: #"{"value": 31.25}"#)
                #expect(posted.status == 201)
                _ = try await tmux.waitFor { $0.contains("31.25 °C") }

                try await tmux.send("q")
                try await tmux.waitForExit()
            }
        }
    }
}
