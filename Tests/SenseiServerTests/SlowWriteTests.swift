import Foundation
import Logging
import Synchronization
import Testing
import SenseiModels
@testable import SenseiServer

extension BlockingSuites {
    /// Writes that take long: what waits behind them, and what a shutdown does
    /// with them.
    @Suite("Slow writes")
    struct SlowWriteTests {
        /// Regression: libmicrohttpd aborts the process when stopped with a
        /// connection still suspended, so a SIGTERM while a write waited longer
        /// than the shutdown's grace (a stalled disk, or the quadratic receive-time
        /// insert) crashed the server. Such a request now gets 503, and the stop is clean.
        @Test func shutdownAnswersWhatStillWaitsWith503() throws {
            let held = Mutex<[Responder]>([])
            var configuration = HTTPServer.Configuration()
            configuration.host = "127.0.0.1"
            configuration.port = 0
            configuration.threads = 2
            let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
            // Never answered: a write that never commits.
            let server = HTTPServer(configuration: configuration, logger: logger) { _, responder in
                held.withLock { $0.append(responder) }
            }
            try server.start()
            let client = TestHTTPClient(port: server.port, token: nil)
            let answer = Thread.detachedResult { try client.post("/slow", json: "{}") }
            let deadline = ContinuousClock.now + .seconds(5)
            while held.withLock({ $0.isEmpty }) && ContinuousClock.now < deadline { usleep(2_000) }
            #expect(held.withLock { $0.count } == 1)
            server.shutdown(grace: .milliseconds(200))
            while answer.value == nil && ContinuousClock.now < deadline { usleep(2_000) }
            let response = try #require(try answer.value?.get())
            expectError(response, 503, "a request still suspended at shutdown", mentioning: "stopping")
            #expect(response.headers["retry-after"] == "1")
        }

        /// Regression: a reading without a timestamp that landed on a taken
        /// millisecond moved on 1 ms at a time, one INSERT a step, so a batch of
        /// n receive-time readings cost n²/2 INSERTs on the one writer thread
        /// and every other write waited behind it (debug build: 2,000 readings
        /// 0.9 s, 4,000 10 s; a 1 MiB body holds ~80,000). Compared with the
        /// same batch carrying timestamps, so the check does not depend on the
        /// machine's speed.
        @Test func receiveTimeBatchCostsNoMoreThanATimestampedOne() throws {
            try withScratchDirectory { directory in
                let (server, client) = try startChildServer(directory)
                defer { _ = server.stop() }
                func timedPost(_ code: String, _ items: [String]) throws -> Duration {
                    let started = ContinuousClock.now
                    let response = try client.post("/sensors/\(code)/data", json: #"{"data":[\#(items.joined(separator: ","))]}"#)
                    #expect(response.status == 201)
                    return ContinuousClock.now - started
                }
                let stamped = try timedPost("stamped", (0..<2_000).map { #"{"timestamp":\#(1_700_000_000 + $0),"value":1}"# })
                let received = try timedPost("received", Array(repeating: #"{"value":1}"#, count: 2_000))
                #expect(try client.get("/sensors/received").json["count"] == .number(2_000))
                #expect(received < stamped * 5 + .milliseconds(100),
                        "2,000 receive-time readings took \(received.seconds), with timestamps \(stamped.seconds)")
            }
        }
    }
}
