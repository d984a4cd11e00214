import Dispatch
import Foundation
import GRDB
import SenseiTestSupport
import Testing
import SenseiModels
@testable import SenseiServer

/// The store on a real SQLite file in a temporary directory.
@Suite("Store")
struct StoreTests {
    @Test func concurrentWritesAllLandOnceThroughGroupCommit() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/s.sqlite")
            let threads = 16
            let perThread = 50
            DispatchQueue.concurrentPerform(iterations: threads) { thread in
                for index in 0..<perThread {
                    let reading = ReadingInput(timestamp: Timestamp(milliseconds: Int64(thread * 1000 + index)),
                                               value: Double(index))
                    _ = try! store.insertReadings([reading], into: .code("s\(thread % 4)"), createIfMissing: true)
                }
            }
            let sensors = try store.sensors()
            #expect(sensors.count == 4)
            #expect(sensors.map(\.count).reduce(0, +) == threads * perThread)
            let rows = try store.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM readings") }
            #expect(rows == threads * perThread)
            #expect(try store.integrityCheck() == "ok")
        }
    }

    @Test func oneFailingWriteInAGroupDoesNotTakeOthersDown() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/s.sqlite")
            _ = try store.createSensor(code: "flag", name: nil, units: "", valueType: .bool)
            let results = Results()
            DispatchQueue.concurrentPerform(iterations: 20) { index in
                do {
                    let value = index % 2 == 0 ? 1.0 : 5.0  // 5 is not a boolean
                    try store.insertReadings([ReadingInput(timestamp: Timestamp(milliseconds: Int64(index)), value: value)],
                                             into: .code("flag"), createIfMissing: false)
                    results.record(success: true)
                } catch {
                    results.record(success: false)
                }
            }
            #expect(results.counts == (10, 10))
            #expect(try store.sensor(.code("flag"))?.count == 10)
        }
    }

    @Test func countAndLatestFollowInsertsAndReplacements() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/s.sqlite")
            let t = { (ms: Int64) in Timestamp(milliseconds: ms) }
            try store.insertReadings([.init(timestamp: t(200), value: 2), .init(timestamp: t(100), value: 1)],
                                     into: .code("x"), createIfMissing: true)
            #expect(try store.sensor(.code("x"))?.latest == Reading(timestamp: t(200), value: 2))
            // An older reading does not move latest; a replacement of the newest does.
            try store.insertReadings([.init(timestamp: t(50), value: 9)], into: .code("x"), createIfMissing: false)
            #expect(try store.sensor(.code("x"))?.latest == Reading(timestamp: t(200), value: 2))
            try store.insertReadings([.init(timestamp: t(200), value: 7)], into: .code("x"), createIfMissing: false)
            let sensor = try #require(try store.sensor(.code("x")))
            #expect(sensor.latest == Reading(timestamp: t(200), value: 7))
            #expect(sensor.count == 3)
        }
    }

    /// Readings without a timestamp take the receive time, moved on past
    /// every taken millisecond: a batch lays them end to end, a later write
    /// at the same instant goes after them, and a device's reading already
    /// in the way is stepped over, never replaced.
    @Test func receiveTimeReadingsNeverCollide() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/s.sqlite")
            let received = Timestamp(milliseconds: 1_700_000_000_000)
            let device = ReadingInput(timestamp: Timestamp(milliseconds: received.milliseconds + 5_001), value: -1)
            try store.insertReadings([device], into: .code("r"), createIfMissing: true)
            let batch = (0..<5_000).map { ReadingInput(timestamp: nil, value: Double($0)) }
            try store.insertReadings(batch, into: .code("r"), createIfMissing: false, receivedAt: received)
            try store.insertReadings((0..<3).map { ReadingInput(timestamp: nil, value: Double(10_000 + $0)) },
                                     into: .code("r"), createIfMissing: false, receivedAt: received)
            let (sensor, readings) = try store.readings(of: .code("r"), ReadingQuery(limit: 10_000, ascending: true))
            #expect(sensor.count == 5_004)
            let offsets = readings.map { $0.timestamp.milliseconds - received.milliseconds }
            #expect(offsets == Array(0..<5_000) + [5_000, 5_001, 5_002, 5_003])
            #expect(readings.map(\.value) == (0..<5_000).map(Double.init) + [10_000, -1, 10_001, 10_002])
        }
    }

    /// Batches go in a chunk of 100 per statement where nothing can collide,
    /// and row by row elsewhere: the result must not show which way a reading
    /// went. Chunks here: new (chunked), one holding a stored reading (row by
    /// row, replacing it), out of order (row by row), a repeated instant, and
    /// the whole batch again (all replacements).
    @Test func chunkedAndRowByRowBatchesStoreTheSame() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/s.sqlite")
            let base: Int64 = 1_700_000_000_000
            let t = { (i: Int) in Timestamp(milliseconds: base + Int64(i) * 7_000) }
            try store.insertReadings([ReadingInput(timestamp: t(150), value: -5)], into: .code("c"), createIfMissing: true)
            var batch = (0..<450).map { ReadingInput(timestamp: t($0), value: Double($0 % 17) + 0.5) }
            batch[200..<300].reverse()                                       // out of order
            batch[320] = ReadingInput(timestamp: t(319), value: 99)          // an instant twice: the later wins
            try store.insertReadings(batch, into: .code("c"), createIfMissing: false)
            try expectRollupsMatchReadings(store, "first batch")
            let (sensor, readings) = try store.readings(of: .code("c"), ReadingQuery(limit: 10_000, ascending: true))
            #expect(sensor.count == 449)
            #expect(readings.count == 449)
            let expected = (0..<450).filter { $0 != 320 }.map { i in
                Reading(timestamp: t(i), value: i == 319 ? 99 : Double(i % 17) + 0.5)
            }
            #expect(readings == expected)
            #expect(readings.first { $0.timestamp == t(320) } == nil)
            #expect(sensor.latest == Reading(timestamp: t(449), value: Double(449 % 17) + 0.5))
            // A device retrying the whole batch changes nothing.
            try store.insertReadings(batch, into: .code("c"), createIfMissing: false)
            #expect(try store.sensor(.code("c"))?.count == 449)
            try expectRollupsMatchReadings(store, "retried batch")
        }
    }

    @Test func deletedSensorIdsAreNeverReused() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SenseiStore(path: directory + "/s.sqlite")
            let first = try store.createSensor(code: "a", name: nil, units: "", valueType: .float)
            try store.deleteSensor(.id(first.id))
            let second = try store.createSensor(code: "a", name: nil, units: "", valueType: .float)
            #expect(second.id == first.id + 1)
        }
    }
}

private final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var successes = 0
    private var failures = 0

    func record(success: Bool) {
        lock.lock()
        defer { lock.unlock() }
        if success { successes += 1 } else { failures += 1 }
    }

    var counts: (Int, Int) {
        lock.lock()
        defer { lock.unlock() }
        return (successes, failures)
    }
}
