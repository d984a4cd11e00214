import Foundation
import Synchronization
import Testing
import SenseiModels
import SenseiTestSupport
@testable import SenseiServer

#if canImport(Glibc)
import Glibc
#endif

extension BlockingSuites {
    /// "Nothing lost": the real binary is SIGKILLed in the middle of concurrent
    /// writes, again and again on one data directory. After each kill the
    /// database file is sound, and after each restart every reading that got a
    /// 201 is there exactly once with its value; a request cut off unanswered is
    /// stored whole or not at all, and nothing appears that no one sent.
    /// The device timestamps are years old, and the server packs them
    /// (`--compaction-interval 0.05`) while the writers keep writing into the
    /// hours it packs: kills land mid-compaction too.
    @Suite("Crash safety")
    struct CrashSafetyTests {
        static let cycles = 5
        static let arguments = ["--threads", "4", "--compaction-interval", "0.05"]

        @Test func sigkillMidLoadLosesNothingAcknowledged() async throws {
            try await offThePool {
                let started = ContinuousClock.now
                let ledger = WriteLedger()
                var random = SplitMix64(seed: 0xC0FFEE)
                var packedHoursSeen = 0
                try withScratchDirectory { directory in
                    var (server, client) = try startChildServer(directory, Self.arguments)
                    for cycle in 1...Self.cycles {
                        let writers = ThreadGroup()
                        let before = ledger.acknowledgedRequests
                        let target = client
                        writers.start(WriteLoad.writers) { writer in WriteLoad(writer: writer, client: target, ledger: ledger).run() }
                        // Kill at a different point of each cycle: after 150 to 600 more 201s (or 4 s).
                        let killAt = before + 150 + Int(random.next() % 450)
                        waitUntil(seconds: 4) { ledger.acknowledgedRequests >= killAt }
                        #expect(ledger.acknowledgedRequests > before, "cycle \(cycle): no write acknowledged")
                        #expect(server.stop(signal: SIGKILL) == SIGKILL)
                        #expect(writers.join(seconds: 30), "cycle \(cycle): writers still blocked after the kill")
                        #expect(try auditDatabase(in: directory) == "ok", "cycle \(cycle): the database as the kill left it")

                        (server, client) = try startChildServer(directory, Self.arguments)
                        let stored = try expectSensorsMatchTheirReadings(client, "cycle \(cycle)")
                        packedHoursSeen = max(packedHoursSeen, try packedHours(in: directory))
                        ledger.check(stored, cycle: cycle)
                    }
                    #expect(server.stop() == 0)
                    #expect(try auditDatabase(in: directory) == "ok")
                    #expect(packedHoursSeen > 0, "nothing was ever packed")
                    try expectRollupsMatchReadings(in: directory, "after \(Self.cycles) kills")
                }
                for failure in ledger.failures.prefix(20) { Issue.record("\(failure)") }
                print("crash safety: \(ledger.summary), in \((ContinuousClock.now - started).seconds)")
            }
        }
    }
}

/// One writer thread's requests: each writer has its own sensor and shape of
/// request, all under way at once. Every item carries a value no other item
/// has (and a device timestamp no other has), so the ledger can tell exactly
/// which request each stored reading came from.
private struct WriteLoad {
    static let writers = 7
    let writer: Int
    let client: TestHTTPClient
    let ledger: WriteLedger

    /// Until the server dies under us (a request fails) or 20 s pass.
    func run() {
        let deadline = ContinuousClock.now + .seconds(20)
        var round = 0
        while ContinuousClock.now < deadline {
            round += 1
            let write = next(round)
            ledger.attempted(write)
            guard let response = try? client.post(write.path, json: write.body) else { return }
            ledger.answered(write, response)
        }
    }

    private func next(_ round: Int) -> Write {
        switch writer {
        case 0, 1:
            // Single readings with device timestamps, as RFC 3339 or epoch seconds.
            let item = ledger.newItem(deviceTime: true)
            return Write(sensor: "dev\(writer)", items: [item], body: round % 2 == 0
                ? #"{"value":\#(item.value),"timestamp":"\#(Timestamp(milliseconds: item.milliseconds!).rfc3339)"}"#
                : #"{"timestamp":\#(seconds(item.milliseconds!)),"value":"\#(item.value)"}"#)
        case 2, 3:
            // Batches of 1 to 40, two writers on one sensor.
            let items = (0..<(1 + (round * 7 + writer) % 40)).map { _ in ledger.newItem(deviceTime: true) }
            let body = items.map { #"{"timestamp":\#(seconds($0.milliseconds!)),"value":\#($0.value)}"# }
            return Write(sensor: "batch", items: items, body: #"{"data":[\#(body.joined(separator: ","))]}"#)
        case 4:
            // Receive-time batches of 1 to 5: readings that share a millisecond move on by 1 ms.
            let items = (0..<(1 + round % 5)).map { _ in ledger.newItem(deviceTime: false) }
            let body = items.map { #"{"value":\#($0.value)}"# }
            return Write(sensor: "rt", items: items, body: #"{"data":[\#(body.joined(separator: ","))]}"#)
        case 5:
            let item = ledger.newItem(deviceTime: false)
            return Write(sensor: "rt", items: [item], body: #"{"value":\#(item.value)}"#)
        default:
            // The seed firmware's route: receive time, value as a string.
            let item = ledger.newItem(deviceTime: false)
            return Write(sensor: "fw", items: [item], legacy: true,
                         body: #"{"sensor_code":"fw","value":"\#(item.value)"}"#)
        }
    }

    private func seconds(_ milliseconds: Int64) -> String {
        "\(milliseconds / 1000).\(String(milliseconds % 1000 + 1000).dropFirst())"
    }
}

/// One POST and the readings it carries.
private struct Write: Sendable {
    struct Item: Hashable, Sendable {
        /// nil: the server's receive time.
        let milliseconds: Int64?
        let value: Double
    }

    let sensor: String
    let items: [Item]
    var legacy = false
    let body: String

    var path: String { legacy ? "/sensor_data" : "/sensors/\(sensor)/data" }
    var expectedAnswer: String { legacy ? #"{"status":"ok"}"# : #"{"accepted":\#(items.count)}"# }
}

/// What was sent and what was acknowledged, and the check of a restarted
/// server against it.
private final class WriteLedger: Sendable {
    private struct State {
        var serial: Int64 = 0
        /// Per sensor: readings known to be stored (acknowledged, or found whole after a kill).
        var durable: [String: Set<Write.Item>] = [:]
        /// Sent, not answered yet; settled by the next check.
        var pending: [Int64: Write] = [:]
        var acknowledgedRequests = 0
        var acknowledgedReadings = 0
        var cutOffStored = 0
        var cutOffLost = 0
        var comparisons = 0
        var failures: [String] = []
    }

    private let state = Mutex(State())

    /// A fresh, unique value (and device timestamp, in 2020: well in the past).
    func newItem(deviceTime: Bool) -> Write.Item {
        let serial = state.withLock { state in
            state.serial += 1
            return state.serial
        }
        return Write.Item(milliseconds: deviceTime ? 1_600_000_000_000 + serial : nil, value: Double(serial) / 4)
    }

    private func key(_ write: Write) -> Int64 { Int64(write.items[0].value * 4) }

    func attempted(_ write: Write) {
        state.withLock { $0.pending[key(write)] = write }
    }

    func answered(_ write: Write, _ response: HTTPResponse) {
        state.withLock { state in
            // Answered but refused: nothing may be stored; keep it pending so the check sees to that.
            guard response.status == 201 else {
                state.failures.append("\(write.path) \(write.body.prefix(80)): \(response.status) \(response.text.prefix(120))")
                return
            }
            if response.text != write.expectedAnswer {
                state.failures.append("\(write.path): answered \(response.text), expected \(write.expectedAnswer)")
            }
            state.pending[key(write)] = nil
            state.durable[write.sensor, default: []].formUnion(write.items)
            state.acknowledgedRequests += 1
            state.acknowledgedReadings += write.items.count
        }
    }

    var acknowledgedRequests: Int { state.withLock { $0.acknowledgedRequests } }
    var failures: [String] { state.withLock { $0.failures } }

    /// `stored`: every sensor's readings after a restart. Each durable reading
    /// is there once with its value; each write cut off by the kill is there
    /// whole (and becomes durable) or not at all; nothing else is there.
    func check(_ stored: [String: [StoredReading]], cycle: Int) {
        state.withLock { state in
            var found: [String: [Double: Int64]] = [:]  // value → timestamp, per sensor
            for (sensor, readings) in stored {
                for reading in readings {
                    if found[sensor, default: [:]].updateValue(reading.milliseconds, forKey: reading.value) != nil {
                        state.failures.append("cycle \(cycle): \(sensor) holds value \(reading.value) twice")
                    }
                }
            }
            func isStored(_ item: Write.Item, in sensor: String) -> Bool {
                guard let at = found[sensor]?[item.value] else { return false }
                return item.milliseconds == nil || item.milliseconds == at
            }
            for (key, write) in state.pending {
                let present = write.items.filter { isStored($0, in: write.sensor) }.count
                if present == write.items.count {
                    state.durable[write.sensor, default: []].formUnion(write.items)
                    state.cutOffStored += 1
                } else if present == 0 {
                    state.cutOffLost += 1
                } else {
                    state.failures.append("cycle \(cycle): \(present) of the \(write.items.count) readings of a cut-off batch stored")
                }
                state.pending[key] = nil
            }
            for sensor in Set(state.durable.keys).union(found.keys) {
                let durable = state.durable[sensor] ?? []
                let lost = durable.filter { !isStored($0, in: sensor) }
                if !lost.isEmpty {
                    state.failures.append("cycle \(cycle): \(sensor) lost \(lost.count) acknowledged readings, e.g. \(lost.first!)")
                }
                let extra = (found[sensor]?.count ?? 0) - (durable.count - lost.count)
                if extra != 0 {
                    state.failures.append("cycle \(cycle): \(sensor) holds \(extra) readings nobody sent")
                }
                state.comparisons += durable.count
            }
        }
    }

    var summary: String {
        state.withLock { state in
            "\(BlockingSuites.CrashSafetyTests.cycles) SIGKILL cycles, \(state.acknowledgedRequests) acknowledged requests "
                + "(\(state.acknowledgedReadings) readings) checked after each restart; \(state.cutOffStored + state.cutOffLost) "
                + "requests cut off unanswered: \(state.cutOffStored) stored whole, \(state.cutOffLost) not at all; "
                + "\(state.comparisons) reading checks, \(state.failures.count) failures"
        }
    }
}
