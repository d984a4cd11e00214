import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The built `sensei-server` executable, run as a child process: for what
/// only the real binary shows (signals, the CLI, the first-start message).
package struct ServerProcess: Sendable {
    /// Built by `swift build` next to the test bundle.
    package static var executable: URL { URL(fileURLWithPath: TestBinaries.path("sensei-server")) }

    package let process: ChildProcess

    /// Starts `sensei-server serve` on a free port and waits (up to 20 s)
    /// until it says where it listens.
    package static func start(dataDirectory: String, environment: [String: String] = [:],
                              extraArguments: [String] = []) throws -> (ServerProcess, port: Int) {
        let arguments = ["serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", dataDirectory] + extraArguments
        let server = ServerProcess(process: try ChildProcess(executable.path, arguments, environment: environment))
        waitUntil(seconds: 20) { server.listeningPort != nil || !server.process.isRunning }
        if let port = server.listeningPort { return (server, port) }
        server.process.signal(SIGKILL)
        _ = server.process.finish(seconds: 10)
        throw HTTPClientError(description: "sensei-server did not start: \(server.log)")
    }

    /// Everything the server wrote to stderr so far.
    package var log: String { process.error }

    /// Sends `signal` and waits (up to 20 s, then kills it) for the exit status.
    package func stop(signal: Int32 = SIGTERM) -> Int32 {
        process.signal(signal)
        return process.finish(seconds: 20).status
    }

    /// Runs `sensei-server ARGUMENTS` to completion (60 s at most): (status, stdout, stderr).
    package static func run(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let result = try ChildProcess.run(executable.path, arguments, timeout: 60)
        return (result.status, result.output, result.error)
    }

    /// Sockets the server holds open: its listening one and one for each
    /// connection it has accepted (one still in the kernel's backlog is not).
    package var openSockets: Int {
        let directory = "/proc/\(process.processIdentifier)/fd"
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return descriptors.count { name in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + name))?.hasPrefix("socket:") == true
        }
    }

    /// The port of the "listening on http://127.0.0.1:PORT" line, once logged.
    private var listeningPort: Int? {
        let log = log
        guard let range = log.range(of: #"listening on https?://127\.0\.0\.1:\d+"#, options: .regularExpression),
              let port = log[range].split(separator: ":").last.flatMap({ Int($0) }) else { return nil }
        return port
    }
}
