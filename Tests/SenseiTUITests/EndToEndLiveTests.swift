import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SenseiModels
import Testing
import SenseiTestSupport
@testable import SenseiTUI

/// The real binaries following the live stream: a reading posted through the
/// API shows without a key press, and `sensei watch` prints it.
@Suite("Live end to end", .serialized)
struct EndToEndLiveTests {
    @Test func aPostedReadingAppearsInTheOpenDetail() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                let now = Timestamp.now().milliseconds
                try await server.post("porch", series(count: 12, every: 300_000, last: now - 60_000) { 20 + Double($0) })
                // A refresh far away: only the stream can bring the reading in time.
                let tmux = try Tmux.dashboard(width: 100, height: 30, scratch: scratch, server: server, arguments: ["--refresh", "3600"])
                defer { tmux.kill() }
                try await tmux.waitFor { $0.contains("Porch") && $0.contains("● online · live") }
                try await tmux.send("Enter")
                try await tmux.waitFor { $0.contains("Count    12") }
                let posted = Date()
                let status = try await post(server, "porch", #"{"value":99.5}"#)
                #expect(status == 201)
                let screen = try await tmux.waitFor { $0.contains("Count    13") }
                print("live end to end: the posted reading was on screen within \(Int(Date().timeIntervalSince(posted) * 1000)) ms")
                #expect(screen.contains("99.5"))
                // Ctrl-L draws the whole screen again, over whatever scribbled on it.
                try await tmux.send("C-l")
                try await tmux.waitFor { $0.contains("Count    13") && $0.contains("● online · live") }
                try await tmux.send("q")
                try await tmux.waitForExit()
            }
        }
    }

    @Test func senseiWatchPrintsWhatWasPosted() async throws {
        try await withScratch { scratch in
            try await withLiveServer(dataDirectory: scratch.serverData) { server in
                try await server.post("porch", [(1_736_424_000_000, 1)])
                _ = try server.application.store.updateSensor(.code("porch"), name: nil, units: "°C", valueType: nil)
                let outputPath = scratch.root + "/watch.out"
                _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
                let process = Process()
                process.executableURL = URL(fileURLWithPath: TestBinaries.path("sensei"))
                process.arguments = ["watch", "porch"]
                process.environment = ProcessInfo.processInfo.environment.merging([
                    "SENSEI_URL": server.url.absoluteString, "SENSEI_TOKEN": server.readToken,
                    "XDG_CONFIG_HOME": scratch.root + "/config",
                ]) { $1 }
                process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
                process.standardError = FileHandle.nullDevice
                process.standardInput = FileHandle.nullDevice
                try process.run()
                defer { stop(process) }
                func output() -> String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
                // Posted until the first shows: the stream opens a moment after the start.
                var posted = 0
                try await eventually("the watch printing", seconds: 20) {
                    posted += 1
                    let status = try await post(server, "porch", #"{"value":\#(posted),"timestamp":"2025-01-09T12:0\#(min(posted, 9)):00Z"}"#)
                    return status == 201 && output().contains(" porch ")
                }
                let status = try await post(server, "porch", #"{"value":-3.25,"timestamp":"2025-01-09T13:00:00Z"}"#)
                #expect(status == 201)
                try await eventually("the posted reading printed") { output().contains("2025-01-09T13:00:00Z porch -3.25 °C\n") }
                #expect(output().split(separator: "\n").allSatisfy { $0.hasPrefix("2025-01-09T1") && $0.hasSuffix(" °C") })
                // Ctrl-C ends it.
                process.interrupt()
                try await eventually("the watch ended by Ctrl-C") { !process.isRunning }
                #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGINT)
            }
        }
    }
}

/// POSTs `json` to a sensor's data through the API with the admin token; the status.
private func post(_ server: LiveServer, _ code: String, _ json: String) async throws -> Int {
    var request = URLRequest(url: server.url.appendingPathComponent("sensors/\(code)/data"))
    request.httpMethod = "POST"
    request.setValue("Bearer \(server.adminToken)", forHTTPHeaderField: "Authorization")
    request.httpBody = Data(json.utf8)
    let (_, response) = try await URLSession.shared.data(for: request)
    return (response as? HTTPURLResponse)?.statusCode ?? 0
}

/// Ends `process`: SIGINT, then after 5 s SIGKILL, so a test never waits on it forever.
func stop(_ process: Process) {
    guard process.isRunning else { return }
    process.interrupt()
    let deadline = Date().addingTimeInterval(5)
    while process.isRunning && Date() < deadline { usleep(20_000) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
}
