import Foundation

/// The built `sensei-server` executable, run as a child process: for what
/// only the real binary shows (signals, the CLI, the first-start message).
struct ServerProcess {
    /// Built by `swift build` next to the test bundle.
    static var executable: URL {
        let bundle = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                         ?? CommandLine.arguments[0])
        return bundle.deletingLastPathComponent().appendingPathComponent("sensei-server")
    }

    let process: Process
    private let errorPipe: Pipe
    private let output: OutputCollector

    /// Starts `sensei-server serve` on a free port and waits until it listens.
    static func start(dataDirectory: String, environment: [String: String] = [:],
                      extraArguments: [String] = []) throws -> (ServerProcess, port: Int) {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", dataDirectory] + extraArguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let errorPipe = Pipe()
        process.standardError = errorPipe
        process.standardOutput = FileHandle.nullDevice
        let output = OutputCollector()
        try process.run()
        // Our copy of the write end would keep the reader from ever seeing EOF.
        try? errorPipe.fileHandleForWriting.close()
        output.drain(errorPipe.fileHandleForReading)
        let server = ServerProcess(process: process, errorPipe: errorPipe, output: output)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let range = server.log.range(of: #"listening on https?://127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                let port = Int(server.log[range].split(separator: ":").last!)!
                return (server, port)
            }
            if !process.isRunning { break }
            usleep(20_000)
        }
        process.terminate()
        throw HTTPClientError(description: "sensei-server did not start: \(server.log)")
    }

    /// Everything the server wrote to stderr so far.
    var log: String { output.text }

    /// Sends `signal` and waits (up to 20 s) for the exit status.
    func stop(signal: Int32 = SIGTERM) -> Int32 {
        kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        output.waitForEnd(seconds: 5)
        return process.terminationStatus
    }

    /// Runs `sensei-server ARGUMENTS` to completion: (status, stdout, stderr).
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let error = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: error, as: UTF8.self))
    }
}

/// A child's stderr, read to its end by a thread of its own with blocking
/// reads. Not `FileHandle.readabilityHandler`: tearing down its dispatch read
/// source races libdispatch's epoll bookkeeping on Linux and crashed the test
/// process in `_dispatch_event_loop_drain` (swift-corelibs-libdispatch#949).
private final class OutputCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private let ended = DispatchSemaphore(value: 0)

    /// Starts reading `handle`; the thread holds it open until EOF.
    func drain(_ handle: FileHandle) {
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
            ended.signal()
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
