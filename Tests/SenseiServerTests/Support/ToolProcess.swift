import Foundation

/// What a command-line tool did: exit status and everything it wrote.
struct ToolResult {
    var status: Int32
    var output: String
    var error: String
    var timedOut: Bool
}

/// Runs a tool (openssl, curl, the built sensei-server) to completion, but
/// for `timeout` seconds at most: a hung child is killed and the test fails,
/// instead of the suite hanging. A bare name is looked up in PATH. Output
/// goes to files, not pipes, so a chatty child cannot block on a full pipe.
func runTool(_ executable: String, _ arguments: [String], timeout: TimeInterval = 30,
             environment: [String: String] = [:]) throws -> ToolResult {
    let process = Process()
    if executable.contains("/") {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
    } else {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments
    }
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let base = NSTemporaryDirectory() + "sensei-tool-" + UUID().uuidString
    let outputPath = base + ".out", errorPath = base + ".err"
    _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
    _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
    defer {
        try? FileManager.default.removeItem(atPath: outputPath)
        try? FileManager.default.removeItem(atPath: errorPath)
    }
    let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
    let error = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    let timedOut = process.isRunning
    if timedOut { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    try output.close()
    try error.close()
    return ToolResult(
        status: process.terminationStatus,
        output: (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "",
        error: (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "",
        timedOut: timedOut)
}
