import Foundation
import Synchronization
import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

#if canImport(Glibc)
import Glibc
#endif

extension BlockingSuites {
    /// Seeded fuzzing (`RequestFuzzer`), beyond ErrorHandlingTests' fixed cases
    /// and its 250 mutations of one body. Invariants: the server never crashes,
    /// never answers 500 (nor any 5xx but 503), answers every well-formed request,
    /// with a JSON `{"error": …}` body on every 4xx; an unauthorised request never
    /// succeeds; and afterwards the data is consistent and the file sound.
    ///
    /// `SENSEI_FUZZ_CASES` sets the number of requests (default 1,000, a few
    /// seconds), `SENSEI_FUZZ_SEED` the seed; a failure prints both, the worker
    /// and case number, and the request's bytes.
    @Suite("Fuzzing")
    struct FuzzTests {
        static let cases = Int(ProcessInfo.processInfo.environment["SENSEI_FUZZ_CASES"] ?? "") ?? 1_000
        static let seed = UInt64(ProcessInfo.processInfo.environment["SENSEI_FUZZ_SEED"] ?? "") ?? 20_261_121
        /// Two clients at once, each replaying its own sequence (seed + worker).
        static let workers = 2

        @Test func hostileRequestsNeverCrashOrYield500() async throws {
            try await offThePool {
                let started = ContinuousClock.now
                try withScratchDirectory { directory in
                    let (server, client) = try startChildServer(directory, ["--threads", "2", "--log-level", "notice"])
                    defer { _ = server.stop() }
                    let tally = FuzzTally()
                    let group = ThreadGroup()
                    group.start(Self.workers) { worker in
                        var fuzzer = RequestFuzzer(seed: Self.seed &+ UInt64(worker), token: childToken)
                        for index in 0..<(Self.cases / Self.workers) where !tally.serverDown {
                            let request = fuzzer.next()
                            let label = "SENSEI_FUZZ_SEED=\(Self.seed), worker \(worker), case \(index)"
                            do {
                                let response = try deliver(request, to: client)
                                tally.record(response?.status, problem: problem(with: request, response), label, request)
                            } catch {
                                tally.record(nil, problem: "\(error)", label, request)
                                if (try? client.connect()).map({ close($0) }) == nil { tally.markDown() }
                            }
                        }
                    }
                    #expect(group.join(seconds: 1_800))
                    #expect(server.process.isRunning, "the server died: \(server.log.suffix(2000))")
                    for failure in tally.failures.prefix(10) { Issue.record("\(failure)") }
                    let health = try client.get("/health")
                    #expect(health.status == 200 && health.text.hasPrefix(#"{"status":"ok""#))
                    let logged = server.log.split(separator: "\n").filter {
                        let level = $0.split(separator: " ").dropFirst().first
                        return level == "error" || level == "critical"
                    }
                    #expect(logged.isEmpty, "logged: \(logged.prefix(5).joined(separator: "\n"))")
                    let stored = try expectSensorsMatchTheirReadings(client, "after fuzzing")
                    #expect(server.stop() == 0)
                    #expect(try auditDatabase(in: directory) == "ok")
                    try expectRollupsMatchReadings(in: directory, "after fuzzing")
                    print("fuzz: SENSEI_FUZZ_SEED=\(Self.seed), \(tally.summary), in \((ContinuousClock.now - started).seconds); "
                          + "then \(stored.count) sensors, \(stored.values.map(\.count).reduce(0, +)) readings consistent")
                }
            }
        }

        /// Well-formed cases sent back to back on one keep-alive connection, 2
        /// to 6 at a time: each is answered, in order, as it would be alone, so
        /// nothing of one request (its body, its state) leaks into the next.
        @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
            try await offThePool {
                try withScratchDirectory { directory in
                    let (server, client) = try startChildServer(directory, ["--threads", "2", "--log-level", "notice"])
                    defer { _ = server.stop() }
                    var fuzzer = RequestFuzzer(seed: Self.seed &+ 1_000, token: childToken)
                    var answered = 0
                    for round in 0..<(Self.cases / 10) {
                        var batch: [RequestFuzzer.Case] = []
                        while batch.count < 2 + round % 5 {
                            let request = fuzzer.next(keepAlive: true)
                            if request.wellFormed && request.answerOwed { batch.append(request) }
                        }
                        let label = "SENSEI_FUZZ_SEED=\(Self.seed), pipelined round \(round)"
                        let responses = try deliverPipelined(batch, to: client)
                        answered += responses.count
                        #expect(responses.count == batch.count,
                                "\(label): \(responses.count) answers to \(batch.count) requests\n    \(batch.map(\.description).joined(separator: "\n    "))")
                        for (request, response) in zip(batch, responses) {
                            if let problem = problem(with: request, response) {
                                Issue.record("\(label): \(problem)\n    \(request)")
                            }
                        }
                    }
                    #expect(server.process.isRunning)
                    try expectSensorsMatchTheirReadings(client, "after pipelining")
                    print("fuzz: \(answered) requests answered in order, pipelined 2 to 6 on a connection")
                }
            }
        }

        /// The same bodies straight into the parser and the reading rules, ten
        /// times as many (no HTTP, so fast): a parse either fails with an offset
        /// inside the body or gives a value that writes and parses back the same;
        /// readings come out finite, in range and at most 10 minutes ahead, or
        /// are refused with a 422 that says why.
        @Test func mutatedBodiesParseOrFailCleanly() async throws {
            try await offThePool { () throws in
                var fuzzer = RequestFuzzer(seed: Self.seed, token: "")
                let now = Timestamp.now()
                var parsed = 0, readings = 0
                for index in 0..<(Self.cases * 10) {
                    let body = fuzzer.anyBody()
                    let label = "SENSEI_FUZZ_SEED=\(Self.seed), body \(index): \(String(decoding: body.prefix(300), as: UTF8.self))"
                    let value: JSONValue
                    do throws(JSONParseError) {
                        value = try JSONParser.parse(body)
                    } catch {
                        #expect((0...body.count).contains(error.offset) && !error.reason.isEmpty, "\(label): \(error)")
                        continue
                    }
                    parsed += 1
                    if value.isFinite {
                        #expect(try JSONParser.parse(value.serialized) == value, "\(label): \(value.serialized) reads back otherwise")
                    }
                    do throws(APIError) {
                        let inputs = try ReadingPayload.parse(value, now: now)
                        readings += inputs.count
                        for input in inputs {
                            #expect(input.value.isFinite, "\(label)")
                            if let timestamp = input.timestamp {
                                #expect(Timestamp.range.contains(timestamp.milliseconds), "\(label)")
                                #expect(timestamp.milliseconds <= now.milliseconds + ReadingPayload.maximumClockSkew, "\(label)")
                                #expect(Timestamp(rfc3339: timestamp.rfc3339) == timestamp, "\(label): \(timestamp)")
                            }
                        }
                    } catch {
                        #expect(error.status == 422 && !(error.message.isEmpty), "\(label): \(error)")
                    }
                }
                print("fuzz: \(Self.cases * 10) bodies into the parser: \(parsed) parsed, \(readings) readings accepted")
            }
        }
    }
}

/// What the server owes `request`, given what came back; nil when all is well.
private func problem(with request: RequestFuzzer.Case, _ response: HTTPResponse?) -> String? {
    guard let response else { return request.answerOwed && request.wellFormed ? "no answer" : nil }
    let status = response.status
    if status >= 500 && status != 503 && !(status == 505 && !request.wellFormed) { return "answered \(status)" }
    guard request.wellFormed else { return nil }
    let isHealth = request.path.split(separator: UInt8(ascii: "?")).first.map(Array.init) == Array("/health".utf8)
    if request.auth == .invalid && ![401, 404, 405].contains(status) && !isHealth {
        return "answered \(status) to a request without a valid token"
    }
    if request.method == "HEAD" { return nil }  // no body to check
    if status >= 400 {
        let error = (try? response.json)?.objectValue
        guard response.headers["content-type"]?.hasPrefix("application/json") == true, error?.count == 1,
              error?["error"]?.stringValue?.isEmpty == false else {
            return "\(status) without a JSON error: \(response.headers["content-type"] ?? "no type") \(response.text.prefix(200))"
        }
    } else if status != 204, response.headers["content-type"]?.hasPrefix("text/csv") != true,
              (try? response.json) == nil {
        return "\(status) body is not JSON: \(response.text.prefix(200))"
    }
    return nil
}

/// Sends the case on a new connection and reads one response: nil when the
/// server closed without one. A case that owes no answer gets 300 ms.
private func deliver(_ request: RequestFuzzer.Case, to client: TestHTTPClient) throws -> HTTPResponse? {
    let socket = try client.connect()
    defer { close(socket) }
    var timeout = request.answerOwed && request.wellFormed ? timeval(tv_sec: 5, tv_usec: 0) : timeval(tv_sec: 0, tv_usec: 300_000)
    setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    try client.send(request.bytes, on: socket)
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        if let response = try? TestHTTPClient.parse(received) {
            let length = response.headers["content-length"].flatMap(Int.init)
            if request.method == "HEAD" || response.status == 204 || length.map({ response.body.count >= $0 }) == true {
                return response
            }
        }
        let count = recv(socket, &buffer, buffer.count, 0)
        if count > 0 {
            received.append(contentsOf: buffer[0..<count])
        } else if count == 0 || errno == ECONNRESET || !(request.answerOwed && request.wellFormed) {
            return received.isEmpty ? nil : try TestHTTPClient.parse(received)
        } else {
            throw HTTPClientError(description: "no answer within 5 s (errno \(errno))")
        }
    }
}

/// Sends the cases back to back on one connection and reads their answers
/// in order, until all are in, the server closes, or 5 s of silence.
private func deliverPipelined(_ requests: [RequestFuzzer.Case], to client: TestHTTPClient) throws -> [HTTPResponse] {
    let socket = try client.connect()
    defer { close(socket) }
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    try client.send(requests.flatMap(\.bytes), on: socket)
    var received: [UInt8] = []
    var responses: [HTTPResponse] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while responses.count < requests.count {
        // Take every whole response at the front of what has arrived.
        if let end = received.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound {
            var response = try TestHTTPClient.parse(Array(received[..<end]))
            let length = requests[responses.count].method == "HEAD" || response.status == 204
                ? 0 : response.headers["content-length"].flatMap(Int.init) ?? 0
            if received.count - end >= length {
                response.body = Array(received[end..<(end + length)])
                responses.append(response)
                received.removeFirst(end + length)
                continue
            }
        }
        let count = recv(socket, &buffer, buffer.count, 0)
        guard count > 0 else { break }
        received.append(contentsOf: buffer[0..<count])
    }
    return responses
}

/// The statuses seen and the failures, from all workers.
private final class FuzzTally: Sendable {
    private struct State {
        var statuses: [Int: Int] = [:]
        var failures: [String] = []
        var down = false
    }

    private let state = Mutex(State())

    func record(_ status: Int?, problem: String?, _ label: String, _ request: RequestFuzzer.Case) {
        state.withLock { state in
            state.statuses[status ?? 0, default: 0] += 1
            if let problem { state.failures.append("\(label): \(problem)\n    \(request)") }
        }
    }

    func markDown() { state.withLock { $0.down = true } }
    var serverDown: Bool { state.withLock { $0.down } }
    var failures: [String] { state.withLock { $0.failures } }

    var summary: String {
        state.withLock { state in
            let total = state.statuses.values.reduce(0, +)
            let shown = state.statuses.sorted { $0.key < $1.key }.map { "\($0.key == 0 ? "none" : "\($0.key)"): \($0.value)" }
            return "\(total) requests (\(shown.joined(separator: ", "))), \(state.failures.count) failures"
        }
    }
}

extension JSONValue {
    /// No number in it is infinite (JSON cannot write one back).
    fileprivate var isFinite: Bool {
        switch self {
        case .number(let number): number.isFinite
        case .array(let items): items.allSatisfy(\.isFinite)
        case .object(let members): members.values.allSatisfy(\.isFinite)
        default: true
        }
    }
}
