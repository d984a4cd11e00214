import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The waits on children for async tests: the blocking ones, run off the
/// cooperative pool (`offThePool`). Same names: in an async function Swift
/// picks these, and asks for `await`.
extension ChildProcess {
    package func waitForExit(seconds: Double) async -> Bool {
        await offThePool { self.waitForExit(seconds: seconds) }
    }

    package func finish(seconds: Double) async -> ToolResult {
        await offThePool { self.finish(seconds: seconds) }
    }

    package static func run(_ executable: String, _ arguments: [String], timeout: Double = 30,
                            environment: [String: String] = [:]) async throws -> ToolResult {
        try await offThePool { try run(executable, arguments, timeout: timeout, environment: environment) }
    }
}

package func runTool(_ executable: String, _ arguments: [String], timeout: Double = 30,
                     environment: [String: String] = [:]) async throws -> ToolResult {
    try await offThePool { try runTool(executable, arguments, timeout: timeout, environment: environment) }
}

extension ServerProcess {
    package static func start(dataDirectory: String, environment: [String: String] = [:],
                              extraArguments: [String] = []) async throws -> (ServerProcess, port: Int) {
        try await offThePool {
            try start(dataDirectory: dataDirectory, environment: environment, extraArguments: extraArguments)
        }
    }

    package func stop(signal: Int32 = SIGTERM) async -> Int32 {
        await offThePool { self.stop(signal: signal) }
    }

    package static func run(_ arguments: [String]) async throws -> (status: Int32, output: String, error: String) {
        try await offThePool { try run(arguments) }
    }
}
