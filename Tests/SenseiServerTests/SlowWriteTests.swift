import Foundation
import Logging
import Synchronization
import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

extension BlockingSuites {
    /// Writes that take long: what waits behind them, and what a shutdown does
    /// with them.
    @Suite("Slow writes")
    struct SlowWriteTests {
        /// The HTTP layer alone on a free loopback port, answering through `handler`.
        static func bareServer(_ handler: @escaping HTTPServer.Handler) -> HTTPServer {
            var configuration = HTTPServer.Configuration()
            configuration.host = "127.0.0.1"
            configuration.port = 0
            configuration.threads = 2
            return HTTPServer(configuration: configuration, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() },
                              handler: handler)
        }

        /// Regression: libmicrohttpd aborts the process when stopped with a
        /// connection still suspended, so a SIGTERM while a write waited longer
        /// than the shutdown's grace (a stalled disk, or the quadratic receive-time
        /// insert) crashed the server. Such a request now gets 503, and the stop is clean.
        @Test func shutdownAnswersWhatStillWaitsWith503() async throws {
            try await offThePool {
                let held = Mutex<[Responder]>([])
                // Never answered: a write that never commits.
                let server = Self.bareServer { _, responder in
                    held.withLock { $0.append(responder) }
                }
                try server.start()
                let client = TestHTTPClient(port: server.port, token: nil)
                let answer = Thread.detachedResult { try client.post("/slow", json: "{}") }
                waitUntil(seconds: 5) { !held.withLock { $0.isEmpty } }
                #expect(held.withLock { $0.count } == 1)
                server.shutdown(grace: .milliseconds(200))
                waitUntil(seconds: 5) { answer.value != nil }
                let response = try #require(try answer.value?.get())
                expectError(response, 503, "a request still suspended at shutdown", mentioning: "stopping")
                #expect(response.headers["retry-after"] == "1")
            }
        }

        /// Regression: a handler that returned, leaving its answer for later,
        /// after the shutdown's last look at what waits suspended its
        /// connection while libmicrohttpd stopped, and libmicrohttpd aborted
        /// the process (seen once as exit status 6 under SIGTERM with 8
        /// writers). Past that point a request is answered 503 at once instead.
        @Test func aHandlerReturningDuringTheStopDoesNotSuspend() async throws {
            try await offThePool { try Self.handlerReturningDuringTheStop() }
        }

        private static func handlerReturningDuringTheStop() throws {
            let entered = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            // Blocks its worker until released, then leaves the answer for later.
            let server = Self.bareServer { _, _ in
                entered.signal()
                release.wait()
            }
            try server.start()
            let client = TestHTTPClient(port: server.port, token: nil)
            let answer = Thread.detachedResult { try client.post("/late", json: "{}") }
            #expect(entered.wait(timeout: .now() + 5) == .success)
            let stopped = Thread.detachedResult { server.shutdown(grace: .milliseconds(100)) }
            // Past the grace: the shutdown found nothing suspended and is
            // stopping the daemon, which waits for the blocked worker.
            #expect(waitUntil(seconds: 10) { server.isClosing })
            #expect(stopped.value == nil)
            release.signal()
            waitUntil(seconds: 10) { stopped.value != nil && answer.value != nil }
            #expect(stopped.value != nil, "the shutdown did not finish")
            // The daemon may close the connection before the 503 goes out; it
            // must never be anything else.
            if case .success(let response)? = answer.value {
                expectError(response, 503, "a request whose handler returned while stopping", mentioning: "stopping")
            }
        }

        /// Regression: a reading without a timestamp that landed on a taken
        /// millisecond moved on 1 ms at a time, one INSERT a step, so a batch of
        /// n receive-time readings cost n²/2 INSERTs on the one writer thread
        /// and every other write waited behind it (debug build: 2,000 readings
        /// 0.9 s, 4,000 10 s; a 1 MiB body holds ~80,000). Compared with the
        /// same batch carrying timestamps, so the check does not depend on the
        /// machine's speed.
        @Test func receiveTimeBatchCostsNoMoreThanATimestampedOne() async throws {
            try await offThePool {
                try withScratchDirectory { directory in
                    let (server, client) = try startChildServer(directory)
                    defer { _ = server.stop() }
                    func timedPost(_ code: String, _ items: [String]) throws -> Duration {
                        let started = ContinuousClock.now
                        let response = try client.post("/sensors/\(code)/data", json: #"{"data":[\#(items.joined(separator: ","))]}"#)
                        #expect(response.status == 201)
                        return ContinuousClock.now - started
                    }
                    let stamped = try timedPost("stamped", (0..<4_000).map { #"{"timestamp":\#(1_700_000_000 + $0),"value":1}"# })
                    let received = try timedPost("received", Array(repeating: #"{"value":1}"#, count: 4_000))
                    #expect(try client.get("/sensors/received").json["count"] == .number(4_000))
                    // Generous, for a loaded machine: the quadratic insert took 10 s for
                    // 4,000 where a linear one takes a fraction of a second.
                    #expect(received < stamped * 10 + .seconds(2),
                            "4,000 receive-time readings took \(received.seconds), with timestamps \(stamped.seconds)")
                    print("slow writes: 4,000 receive-time readings in \(received.seconds), with timestamps \(stamped.seconds)")
                }
            }
        }
    }
}
