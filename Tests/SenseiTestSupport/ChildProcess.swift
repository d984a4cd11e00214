import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What a finished child did: exit status and everything it wrote.
package struct ToolResult: Sendable {
    package var status: Int32
    package var output: String
    package var error: String
    /// It outlived its time and was killed.
    package var timedOut: Bool
}

/// A child process (the built binaries, openssl, curl) with stdin from
/// /dev/null and stdout and stderr each read by a thread of its own, so a
/// child filling one pipe while we wait on the other cannot deadlock, and a
/// test can read what a still-running child has written so far.
///
/// Not swift-subprocess: its API is async and scoped to a closure, while the
/// tests that drive children are synchronous (they block on sockets on
/// threads of their own) and keep a server running across statements.
/// Unchecked: `Process` is not marked Sendable; this type only reads it after
/// `run()`, and the readers keep their own locks.
package final class ChildProcess: @unchecked Sendable {
    private let process: Process
    private let exited = DispatchGroup()
    private let standardOutput = PipeReader()
    private let standardError = PipeReader()

    /// Starts `executable` (a bare name is looked up in PATH) with
    /// `environment` added to this process's own.
    package init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        let process = Process()
        if executable.contains("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        let outputPipe = Pipe(), errorPipe = Pipe()
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        let exited = exited
        exited.enter()
        process.terminationHandler = { _ in exited.leave() }
        do {
            try process.run()
        } catch {
            exited.leave()
            throw error
        }
        // Our copies of the write ends would keep the readers from ever seeing EOF.
        try? outputPipe.fileHandleForWriting.close()
        try? errorPipe.fileHandleForWriting.close()
        standardOutput.start(outputPipe.fileHandleForReading)
        standardError.start(errorPipe.fileHandleForReading)
        self.process = process
    }

    package var isRunning: Bool { process.isRunning }
    package var processIdentifier: Int32 { process.processIdentifier }
    /// Everything written to stdout so far.
    package var output: String { standardOutput.text }
    /// Everything written to stderr so far.
    package var error: String { standardError.text }

    package func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits up to `seconds` for the child to exit; false if it still runs.
    package func waitForExit(seconds: Double) -> Bool {
        exited.wait(timeout: .now() + seconds) == .success
    }

    /// Waits up to `seconds` for the exit (then kills it) and for the pipes'
    /// last bytes (bounded too: a grandchild may hold them open).
    package func finish(seconds: Double) -> ToolResult {
        let timedOut = !waitForExit(seconds: seconds)
        if timedOut {
            signal(SIGKILL)
            _ = waitForExit(seconds: 10)
        }
        process.waitUntilExit()
        standardOutput.waitForEnd(seconds: 5)
        standardError.waitForEnd(seconds: 5)
        return ToolResult(status: process.terminationStatus, output: output, error: error, timedOut: timedOut)
    }

    /// Runs a tool to completion, for `timeout` seconds at most: a hung child
    /// is killed (`timedOut`) instead of hanging the suite.
    package static func run(_ executable: String, _ arguments: [String], timeout: Double = 30,
                            environment: [String: String] = [:]) throws -> ToolResult {
        try ChildProcess(executable, arguments, environment: environment).finish(seconds: timeout)
    }
}

/// Runs a tool to completion (see `ChildProcess.run`).
package func runTool(_ executable: String, _ arguments: [String], timeout: Double = 30,
                     environment: [String: String] = [:]) throws -> ToolResult {
    try ChildProcess.run(executable, arguments, timeout: timeout, environment: environment)
}

/// One pipe, read to its end by a thread of its own with blocking reads. Not
/// `FileHandle.readabilityHandler`: tearing down its dispatch read source
/// races libdispatch's epoll bookkeeping on Linux and crashed the test
/// process in `_dispatch_event_loop_drain` (swift-corelibs-libdispatch#949).
private final class PipeReader: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private let ended = DispatchGroup()

    /// Starts reading `handle`; the thread holds it open until EOF.
    func start(_ handle: FileHandle) {
        ended.enter()
        Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(handle.fileDescriptor, &buffer, buffer.count)
                if count > 0 {
                    append(buffer[..<count])
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            ended.leave()
        }.start()
    }

    /// Waits (bounded) until the child's last words are in `text`.
    func waitForEnd(seconds: Double) {
        _ = ended.wait(timeout: .now() + seconds)
    }

    private func append(_ chunk: ArraySlice<UInt8>) {
        lock.lock()
        data.append(contentsOf: chunk)
        lock.unlock()
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }
}
