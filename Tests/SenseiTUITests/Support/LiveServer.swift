import Foundation
import SenseiModels
import SenseiServer
@testable import SenseiTUI
@testable import SenseiClient

/// The shared live harness (`TestServer`) as the dashboard's I/O tests use
/// it. Readings are put in through its store (fast, exact timestamps); the
/// dashboard reads them back over HTTP.
typealias LiveServer = TestServer

extension TestServer {
    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// A client with the read token (or `token`), quick to give up.
    func client(token: String? = nil, timeout: TimeInterval = 5) -> APIClient {
        APIClient(baseURL: url, token: token ?? readToken, timeout: timeout)
    }

    /// Stores readings (ms since the epoch, value), creating the sensor.
    func post(_ code: String, _ readings: [(Int64, Double)]) throws {
        let inputs = readings.map { ReadingInput(timestamp: Timestamp(milliseconds: $0.0), value: $0.1) }
        try store.insertReadings(inputs, into: .code(code), createIfMissing: true)
    }

    /// `post` for async tests: the wait for the commit, off the cooperative
    /// pool (`offThePool`). Same name: in an async function Swift picks this,
    /// and asks for `await`.
    func post(_ code: String, _ readings: [(Int64, Double)]) async throws {
        try await offThePool { try post(code, readings) }
    }

    func delete(_ code: String) throws {
        try store.deleteSensor(.code(code))
    }
}

/// Starts a server on `dataDirectory`, runs `body`, and shuts it down however
/// `body` ends. A reused directory gets fresh tokens (only digests are kept).
/// `port` 0: any free one (a restart on the same directory may ask for the
/// port of the one before).
func withLiveServer<T>(dataDirectory: String, port: Int = 0, _ body: (LiveServer) async throws -> T) async throws -> T {
    try await withTestServer(dataDirectory: dataDirectory, configure: {
        $0.http.threads = 2
        $0.http.port = UInt16(port)
    }, body)
}

/// A server data directory and a cache file side by side in one scratch directory.
struct Scratch {
    let root: String
    var serverData: String { root + "/server" }
    var cachePath: String { root + "/cache.sqlite" }

    func openCache() throws -> SensorCache { try SensorCache(path: cachePath) }
}

func withScratch<T>(_ body: (Scratch) async throws -> T) async throws -> T {
    try await withScratchDirectory { root in try await body(Scratch(root: root)) }
}

/// `count` readings every `every` ms ending at `last`, values from `value(i)`.
func series(count: Int, every: Int64, last: Int64, value: (Int) -> Double = { Double($0) }) -> [(Int64, Double)] {
    (0..<count).map { i in (last - Int64(count - 1 - i) * every, value(i)) }
}
