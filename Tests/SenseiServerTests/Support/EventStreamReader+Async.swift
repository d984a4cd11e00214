import SenseiModels

/// The reads that wait, for async tests: the blocking ones, run off the
/// cooperative pool (`offThePool`). Same names: in an async function Swift
/// picks these, and asks for `await`.
extension EventStreamReader {
    /// `init(client:path:)`, whose wait for the answer's head runs off the pool.
    static func open(client: TestHTTPClient, path: String) async throws -> EventStreamReader {
        try await offThePool { try EventStreamReader(client: client, path: path) }
    }

    func next(within seconds: Double = 10) async throws -> JSONValue? {
        try await offThePool { try self.next(within: seconds) }
    }

    func nextEvent(within seconds: Double = 10) async throws -> (name: String, data: JSONValue)? {
        try await offThePool { try self.nextEvent(within: seconds) }
    }

    func waitForEnd(within seconds: Double = 10) async -> Bool {
        await offThePool { self.waitForEnd(within: seconds) }
    }
}
