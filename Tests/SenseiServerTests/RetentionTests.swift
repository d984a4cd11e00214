import Dispatch
import Foundation
import GRDB
import Synchronization
import Testing
import SenseiModels
import SenseiTestSupport
@testable import SenseiServer

/// Retention sweeps delete exactly the readings older than a sensor's
/// `retentionDays` and leave counts, latest readings and rollups as the
/// remaining readings make them.
@Suite("Retention", .serialized)
struct RetentionTests {
    static let day: Int64 = 86_400_000
    static let hour: Int64 = 3_600_000
    /// Neither on a whole minute nor a whole hour.
    static let start: Int64 = 1_736_424_032_345

    static func t(_ ms: Int64) -> Timestamp { Timestamp(milliseconds: ms) }

    /// Readings every `interval` ms from `start` for `days`, values seeded.
    static func series(days: Int64, interval: Int64, seed: UInt64) -> [ReadingInput] {
        var random = SplitMix64(seed: seed)
        return stride(from: start, to: start + days * day, by: Int(interval)).map {
            ReadingInput(timestamp: t($0), value: Double.random(in: -50...50, using: &random))
        }
    }

    static func insert(_ readings: [ReadingInput], into code: String, _ store: SenseiStore) throws {
        for offset in stride(from: 0, to: readings.count, by: 5_000) {
            try store.insertReadings(Array(readings[offset..<min(offset + 5_000, readings.count)]), into: .code(code),
                                     createIfMissing: true)
        }
    }

    static func readings(_ store: SenseiStore, _ code: String) throws -> [Reading] {
        try store.readings(of: .code(code), ReadingQuery(limit: Int.max, ascending: true)).1
    }

    @Test func sweepDeletesExactlyTheExpiredReadingsAndKeepsRollupsExact() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/s.sqlite")
            _ = try store.createSensor(code: "trimmed", name: nil, units: "", valueType: .float, retentionDays: 1)
            let series = Self.series(days: 3, interval: 13_001, seed: 1)
            try Self.insert(series, into: "trimmed", store)
            try Self.insert(series, into: "forever", store)
            let forever = try #require(try store.sensor(.code("forever")))
            let latest = try #require(try store.sensor(.code("trimmed"))).latest

            // The cutoff lands inside a minute and an hour, and so does every
            // batch of 997 readings.
            let now = Self.start + 2 * Self.day + 17 * Self.hour + 1_234
            let cutoff = now - Self.day
            let kept = series.filter { $0.timestamp!.milliseconds >= cutoff }
            let expired = series.count - kept.count
            let changes = store.changeCount
            let sweep = try store.sweepRetention(now: Self.t(now), batchSize: 997)
            #expect(sweep.deleted == expired)
            #expect(sweep.batches == (expired + 996) / 997)
            #expect(store.changeCount > changes)

            #expect(try Self.readings(store, "trimmed") == kept.map { Reading(timestamp: $0.timestamp!, value: $0.value) })
            let trimmed = try #require(try store.sensor(.code("trimmed")))
            #expect(trimmed.count == kept.count && trimmed.latest == latest)
            #expect(try store.sensor(.code("forever")) == forever)
            #expect(try Self.readings(store, "forever").count == series.count)
            try expectRollupsMatchReadings(store, "after the sweep")
            let last = series.last!.timestamp!.milliseconds
            for (after, before) in [(cutoff, last), (Self.start, last), (cutoff - Self.hour + 1, cutoff + Self.hour),
                                    (cutoff - 61_000, cutoff + 59_000)] {
                for count in [1, 7, 200, 2_000] {
                    for (code, id) in [("trimmed", trimmed.id), ("forever", forever.id)] {
                        let buckets = try store.buckets(of: .code(code), after: Self.t(after), before: Self.t(before),
                                                        count: count).1
                        let raw = try rawBuckets(store, sensorID: id, after: after, before: before, count: count)
                        expectSameBuckets(buckets, raw, "\(code) \(after)...\(before) in \(count)")
                    }
                }
            }

            // Nothing left to do: no write at all.
            let settled = store.changeCount
            #expect(try store.sweepRetention(now: Self.t(now)) == RetentionSweep())
            #expect(store.changeCount == settled)
            #expect(try store.integrityCheck() == "ok")
        }
    }

    /// Readings that came the ways devices send them (runs, gaps, retries,
    /// collisions, before 1970), cut at a random instant in random batches.
    @Test(arguments: 1...6)
    func randomDataAndCutoffsKeepRollupsExact(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/s.sqlite")
            let times = try RandomDataset.insert(into: store, code: "r", exactValues: false, using: &random)
            let before = try Self.readings(store, "r")
            let latest = try #require(try store.sensor(.code("r"))).latest
            let days = Int64.random(in: 1...3, using: &random)
            let cutoff = Int64.random(in: times.min()!...times.max()!, using: &random)
            _ = try store.updateSensor(.code("r"), name: nil, units: nil, valueType: nil, retentionDays: Int(days))
            let sweep = try store.sweepRetention(now: Self.t(cutoff + days * Self.day),
                                                 batchSize: Int.random(in: 1...3_000, using: &random))

            let after = try Self.readings(store, "r")
            #expect(after == before.filter { $0.timestamp.milliseconds >= cutoff }, "seed \(seed)")
            #expect(sweep.deleted == before.count - after.count)
            let sensor = try #require(try store.sensor(.code("r")))
            #expect(sensor.count == after.count)
            #expect(sensor.latest == (after.isEmpty ? nil : latest))
            try expectRollupsMatchReadings(store, "seed \(seed)")
            for _ in 0..<20 {
                let lo = Int64.random(in: times.min()! - Self.hour...times.max()!, using: &random)
                let hi = Int64.random(in: lo...times.max()! + Self.hour, using: &random)
                let count = [1, 24, 200, Int.random(in: 1...2_000, using: &random)].randomElement(using: &random)!
                let buckets = try store.buckets(of: .code("r"), after: Self.t(lo), before: Self.t(hi), count: count).1
                let raw = try rawBuckets(store, sensorID: sensor.id, after: lo, before: hi, count: count)
                expectSameBuckets(buckets, raw, "seed \(seed), \(lo)...\(hi) in \(count)")
            }
        }
    }

    @Test func sensorWhoseReadingsAllExpireKeepsNoLatestAndNoRollups() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/s.sqlite")
            try Self.insert(Self.series(days: 1, interval: 30_000, seed: 2), into: "old", store)
            _ = try store.updateSensor(.code("old"), name: nil, units: nil, valueType: nil, retentionDays: 30)
            let sweep = try store.sweepRetention(now: Self.t(Self.start + 40 * Self.day))
            #expect(sweep.deleted == 2_880 && sweep.batches == 1)
            let sensor = try #require(try store.sensor(.code("old")))
            #expect(sensor.count == 0 && sensor.latest == nil && sensor.retentionDays == 30)
            let rollups = try store.pool.read { db in
                try Int.fetchOne(db, sql: "SELECT (SELECT count(*) FROM rollups_minute) + (SELECT count(*) FROM rollups_hour)")
            }
            #expect(rollups == 0)
            // New readings start it again from nothing.
            try store.insertReadings([ReadingInput(timestamp: Self.t(Self.start + 40 * Self.day), value: 4)],
                                     into: .code("old"), createIfMissing: false)
            #expect(try store.sensor(.code("old"))?.count == 1)
            try expectRollupsMatchReadings(store, "refilled")
        }
    }

    /// A cutoff among the newest readings, which are not rolled up yet
    /// (`RollupFold`): the frontier moves past the cutoff's minute, whose
    /// remaining readings are rolled up then, so the next fold does not add
    /// them a second time.
    @Test func sweepPastTheRollupFrontierKeepsRollupsExact() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/s.sqlite")
            let series = Self.series(days: 1, interval: 7_000, seed: 4)
            try Self.insert(series, into: "n", store)
            let last = series.last!.timestamp!.milliseconds
            let frontier = RollupLevel.minute.start(of: last) - 60_000
            let cutoff = RollupLevel.minute.start(of: last) + 9_000
            #expect(cutoff < last)
            _ = try store.updateSensor(.code("n"), name: nil, units: nil, valueType: nil, retentionDays: 1)
            let sweep = try store.sweepRetention(now: Self.t(cutoff + Self.day))
            let kept = series.filter { $0.timestamp!.milliseconds >= cutoff }
            #expect(sweep.deleted == series.count - kept.count && !kept.isEmpty)
            #expect(try RollupTests.frontier(of: "n", in: store) == frontier + 2 * 60_000)
            try expectRollupsMatchReadings(store, "swept past the frontier")
            // Two minutes on, a fold: the minute swept into is not added again.
            try store.insertReadings([ReadingInput(timestamp: Self.t(last + 120_000), value: 1)], into: .code("n"),
                                     createIfMissing: false)
            try expectRollupsMatchReadings(store, "folded after the sweep")
            let buckets = try store.buckets(of: .code("n"), after: Self.t(Self.start), before: Self.t(last + 120_000),
                                            count: 5).1
            #expect(buckets.map(\.count).reduce(0, +) == kept.count + 1)
        }
    }

    /// Each batch reads the retention and the readings afresh: one posted
    /// meanwhile with an old timestamp goes too, and a sensor set to keep its
    /// readings loses no more.
    @Test func eachBatchSeesWritesMadeBetweenBatches() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/s.sqlite")
            let series = Self.series(days: 1, interval: 10_000, seed: 3)  // 8,640 readings
            try Self.insert(series, into: "s", store)
            _ = try store.updateSensor(.code("s"), name: nil, units: nil, valueType: nil, retentionDays: 1)
            let straggler = Self.start - 5_000
            var pauses = 0
            let sweep = try store.sweepRetention(now: Self.t(Self.start + 3 * Self.day), batchSize: 1_000) {
                pauses += 1
                if pauses == 1 {
                    try store.insertReadings([ReadingInput(timestamp: Self.t(straggler), value: 1e6)], into: .code("s"),
                                              createIfMissing: false)
                }
                if pauses == 3 {
                    _ = try store.updateSensor(.code("s"), name: nil, units: nil, valueType: nil, retentionDays: .some(nil))
                }
                return true
            }
            // Three batches of 1,000, the straggler among the second's; the
            // fourth finds no retention and stops.
            #expect(sweep.deleted == 3_000 && sweep.batches == 4)
            let left = try Self.readings(store, "s")
            #expect(left.first?.timestamp == series[2_999].timestamp)
            #expect(left.count == series.count - 2_999)
            #expect(try store.sensor(.code("s"))?.count == left.count)
            try expectRollupsMatchReadings(store, "after interleaved writes")

            // `betweenBatches` returning false ends the sweep (a stopping server).
            _ = try store.updateSensor(.code("s"), name: nil, units: nil, valueType: nil, retentionDays: 1)
            let stopped = try store.sweepRetention(now: Self.t(Self.start + 3 * Self.day), batchSize: 1_000) { false }
            #expect(stopped.deleted == 1_000 && stopped.batches == 1)
        }
    }

    /// POSTs keep being answered 201 while a sweep deletes 50,000 old
    /// readings of the same sensor, and none of them is lost.
    @Test(.sqliteOnly) func postsDuringALargeSweepAllSucceed() async throws {
        try await withTestServer(configure: { $0.retentionSweepInterval = 3_600 }) { server in
            let store = server.store
            let now = Timestamp.now().milliseconds
            let old = (0..<50_000).map { ReadingInput(timestamp: Self.t(now - 30 * Self.day + Int64($0) * 10_000),
                                                      value: Double($0 % 1_000)) }
            try Self.insert(old, into: "busy", store)
            let patched = try await server.admin.patch("/sensors/busy", json: #"{"retentionDays":2}"#)
            #expect(patched.status == 200)
            #expect(try patched.json["retentionDays"] == .number(2))

            let sweeping = Atomic(true)
            let outcomes = Mutex<(statuses: [Int], slowest: Duration, duringSweep: Int)>(([], .zero, 0))
            let clock = ContinuousClock()
            // Posters on threads of their own (not `concurrentPerform`, which
            // on two cores may run the sweep to its end before any poster
            // starts), each posting before the sweep begins.
            let posting = Atomic(0)
            let posters = ThreadGroup()
            posters.start(4) { poster in
                // At least 20 POSTs each, and on for as long as the sweep runs.
                var sent = 0
                while sent < 20 || sweeping.load(ordering: .acquiring) {
                    let code = poster % 2 == 0 ? "busy" : "quiet"
                    let started = clock.now
                    let during = sweeping.load(ordering: .acquiring) && posting.load(ordering: .acquiring) >= 4
                    let status = (try? server.writer.post("/sensors/\(code)/data", json: #"{"value": 1.5}"#))?.status ?? 0
                    let took = clock.now - started
                    outcomes.withLock {
                        $0.statuses.append(status)
                        $0.slowest = max($0.slowest, took)
                        if during { $0.duringSweep += 1 }
                    }
                    if sent == 0 { posting.add(1, ordering: .releasing) }
                    sent += 1
                }
            }
            #expect(try await waitUntil(seconds: 30) { posting.load(ordering: .acquiring) >= 4 }, "posters did not start")
            let sweepStarted = clock.now
            // Between batches, until a POST has been answered since the last
            // batch: the writes go on between the sweep's batches.
            let sweep = await offThePool {
                Result {
                    try store.sweepRetention {
                        let answered = outcomes.withLock { $0.statuses.count }
                        _ = waitUntil(seconds: 10) { outcomes.withLock { $0.statuses.count } > answered }
                        return true
                    }
                }
            }
            let took = clock.now - sweepStarted
            sweeping.store(false, ordering: .releasing)
            #expect(posters.join(seconds: 30))
            let report = try sweep.get()
            let (statuses, slowest, duringSweep) = outcomes.withLock { $0 }
            #expect(statuses.allSatisfy { $0 == 201 }, "\(Dictionary(grouping: statuses, by: { $0 }).mapValues(\.count))")
            #expect(duringSweep > 0)
            let expired = old.filter { $0.timestamp!.milliseconds < now - 2 * Self.day }.count
            #expect(report.deleted == expired && report.batches == (expired + 4_999) / 5_000)

            let posted = statuses.count
            let busy = try #require(try store.sensor(.code("busy")))
            let quiet = try #require(try store.sensor(.code("quiet")))
            #expect(busy.count + quiet.count == old.count - expired + posted)
            #expect(try Self.readings(store, "busy").count == busy.count)
            #expect(try await server.reader.get("/sensors/busy").json["count"] == .number(Double(busy.count)))
            try expectRollupsMatchReadings(store, "after a sweep under load")
            #expect(try store.integrityCheck() == "ok")
            try await expectStillHealthy(server)
            print("retention: \(report.deleted) readings in \(report.batches) batches of 5,000 in \(took);"
                  + " longest batch held the writer \(report.longestBatch); \(posted) POSTs all 201,"
                  + " \(duringSweep) during the sweep, slowest \(slowest)")
        }
    }

    /// The server sweeps by itself: a sensor given a retention over HTTP loses
    /// its old readings within a sweep interval, and `GET /sensors` shows it.
    @Test func serverSweepsOnItsOwn() async throws {
        try await withTestServer(configure: { $0.retentionSweepInterval = 0.05 }) { server in
            let now = Timestamp.now().milliseconds
            let readings = (0..<100).map { ReadingInput(timestamp: Self.t(now - 3 * Self.day + Int64($0)), value: 1) }
            try await server.insertReadings(readings, into: .code("garden"), createIfMissing: true)
            try await server.insertReadings([ReadingInput(timestamp: nil, value: 2)], into: .code("garden"),
                                            createIfMissing: false)
            let count = { () async throws -> JSONValue? in try await server.reader.get("/sensors").json["sensors"]?[0]?["count"] }
            #expect(try await count() == .number(101))
            #expect(try await server.admin.patch("/sensors/garden", json: #"{"retentionDays":1}"#).status == 200)
            let logged = {
                server.logs.entries.contains { "\($0.message)".hasPrefix("retention: deleted 100 readings in 1 batches") }
            }
            _ = try await pollAsync(seconds: 10, every: .milliseconds(20)) { try await count() == .number(1) && logged() ? true : nil }
            #expect(try await count() == .number(1))
            #expect(logged())
            try await expectStillHealthy(server)
        }
    }
}
