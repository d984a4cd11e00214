import Foundation
import SenseiModels
import Testing
import SenseiTestSupport
@testable import SenseiTUI

/// The real `sensei` in tmux against a real server holding 10,000 sensors
/// (the server's default `--max-sensors`): the list shows, a filter narrows
/// it, a key moves the selection. The screen waits only catch a hang: they go
/// on while the screen moves (`ScreenWait`), however slow the machine.
@Suite("Dashboard of 10,000 sensors end to end in tmux", .serialized)
struct EndToEndBigHouseTests {
    @Test func tenThousandSensorsListFilterAndMove() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                let now = Timestamp.now().milliseconds / 1000
                // 10,000 series of line protocol, two readings each, in batches.
                for batch in 0..<10 {
                    var lines = ""
                    for sensor in (batch * 1_000)..<((batch + 1) * 1_000) {
                        for age in [120, 60] {
                            lines += "climate,room=room_\(sensor % 20) probe_\(sensor)=\(20 + sensor % 7) \(now - Int64(age))\n"
                        }
                    }
                    let written = try await server.writer.post("/write?db=house&precision=s", json: lines,
                                                         contentType: "text/plain")
                    try #require(written.status == 204, "write: \(written.status)")
                }

                let started = ContinuousClock.now
                let tmux = try Tmux.dashboard(width: 110, height: 30, scratch: scratch, server: server)
                defer { tmux.kill() }
                // Longer than any fixed bound on one slow core, with the sync's
                // progress on screen all the while: `ScreenWait` waits on that.
                let list = try await tmux.waitFor { $0.contains("10000 sensors") && $0.contains("live") }
                print("big house end to end: 10,000 sensors live after \(ContinuousClock.now - started)")
                #expect(list.contains("probe_0"))

                // A filter narrows 10,000 to the 11 whose field starts probe_999.
                try await tmux.send("/")
                try await tmux.send("-l", "probe_999")
                let filtered = try await tmux.waitFor { $0.contains("/probe_999") && $0.contains(" 11 of 10000 sensors") }
                #expect(filtered.contains("probe_9990") && filtered.contains("probe_999"), "\(filtered)")
                try await tmux.send("Escape")
                _ = try await tmux.waitFor { !$0.contains(" of 10000") && $0.contains("10000 sensors") }

                // j moves the selection down a row: the second sensor's detail opens.
                try await tmux.send("j", "Enter")
                let detail = try await tmux.waitFor { $0.contains("Code ") }
                #expect(detail.contains("probe_1"))
                try await tmux.send("q")
                try await tmux.waitForExit()
            }
        }
    }
}
