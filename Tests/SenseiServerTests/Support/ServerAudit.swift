import Dispatch
import Foundation
import GRDB
import SenseiModels
import Synchronization
import Testing
import SenseiTestSupport
@testable import SenseiServer

#if canImport(Glibc)
import Glibc
#endif

// Helpers for the tests that drive the real binary hard (crash safety,
// overload, fuzzing, slow writes), which block on sockets and threads.

/// The suites that drive real processes hard and block for seconds at a
/// time (threads of writers, raw sockets, SIGKILL cycles). A synchronous
/// test would hold a thread of Swift's cooperative pool (two on the
/// reference machine) for its whole run, and these take minutes together:
/// each runs its body off the pool (`offThePool`), and they run one at a
/// time so that their loads do not measure each other.
@Suite(.serialized) enum BlockingSuites {}

/// The pre-shared admin token the child servers of these tests run with.
let childToken = "child-test-token"

/// `sensei-server serve` on `directory`, with `childToken` and `arguments`,
/// and an admin client for it.
func startChildServer(_ directory: String, _ arguments: [String] = []) throws -> (ServerProcess, TestHTTPClient) {
    let (server, port) = try ServerProcess.start(dataDirectory: directory, environment: ["SENSEI_TOKEN": childToken],
                                                 extraArguments: arguments)
    return (server, TestHTTPClient(port: port, token: childToken))
}

/// `startChildServer` for async tests: the wait for the child's port, off the
/// cooperative pool (`offThePool`).
func startChildServer(_ directory: String, _ arguments: [String] = []) async throws -> (ServerProcess, TestHTTPClient) {
    try await offThePool { try startChildServer(directory, arguments) }
}

/// Threads that block (on sockets) outside Swift's concurrency pool.
final class ThreadGroup: Sendable {
    private let group = DispatchGroup()

    /// Runs `body(index)` for each index on its own thread.
    func start(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        for index in 0..<count {
            group.enter()
            let group = group
            Thread {
                body(index)
                group.leave()
            }.start()
        }
    }

    /// Waits for every thread; false if some still run after `seconds`.
    func join(seconds: Double) -> Bool {
        group.wait(timeout: .now() + seconds) == .success
    }
}

extension Thread {
    /// Runs `body` on a new thread; `value` is nil until it returns.
    static func detachedResult<T: Sendable>(_ body: @escaping @Sendable () throws -> T) -> ThreadResult<T> {
        let result = ThreadResult<T>()
        Thread { result.set(Result { try body() }) }.start()
        return result
    }
}

final class ThreadResult<T: Sendable>: Sendable {
    private let stored = Mutex<Result<T, any Error>?>(nil)
    fileprivate func set(_ value: Result<T, any Error>) { stored.withLock { $0 = value } }
    var value: Result<T, any Error>? { stored.withLock { $0 } }
}

/// One stored reading as the API returns it.
struct StoredReading: Hashable {
    let milliseconds: Int64
    let value: Double
}

/// Every reading of sensor `reference` (id or code), oldest first, paged as a client would
/// (bounds are inclusive: the next page starts 1 ms after the last one seen).
func pageAllReadings(_ client: TestHTTPClient, _ reference: String) throws -> [StoredReading] {
    var readings: [StoredReading] = []
    var after: Int64?
    while true {
        let bound = after.map { "&after=\(Timestamp(milliseconds: $0).rfc3339)" } ?? ""
        let response = try client.get("/sensors/\(reference)/data?order=asc&limit=10000\(bound)")
        guard response.status == 200, let page = try response.json["data"]?.arrayValue else {
            throw HTTPClientError(description: "paging \(reference): \(response.status) \(response.text.prefix(200))")
        }
        for item in page {
            guard let text = item["timestamp"]?.stringValue, let time = Timestamp(rfc3339: text),
                  let value = item["value"]?.doubleValue else {
                throw HTTPClientError(description: "paging \(reference): odd item \(item.serialized)")
            }
            readings.append(StoredReading(milliseconds: time.milliseconds, value: value))
        }
        guard page.count == 10_000, let last = readings.last else { return readings }
        after = last.milliseconds + 1
    }
}

/// `GET /sensors` agrees with the readings: each sensor's `count` is the
/// number of readings paged out of it, its `latest` the newest of them, and no
/// timestamp comes twice. Returns the readings by sensor code.
@discardableResult
func expectSensorsMatchTheirReadings(_ client: TestHTTPClient, _ context: String,
                                     sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: [StoredReading]] {
    let list = try client.get("/sensors")
    #expect(list.status == 200, "\(context): GET /sensors \(list.status)", sourceLocation: sourceLocation)
    var all: [String: [StoredReading]] = [:]
    for sensor in try list.json["sensors"]?.arrayValue ?? [] {
        let code = sensor["code"]?.stringValue ?? "?"
        // By id: a code of digits only ("2", made through /sensor_data) reads as an id in a path.
        let readings = try pageAllReadings(client, sensor["id"]?.intValue.map(String.init) ?? code)
        all[code] = readings
        #expect(sensor["count"] == .number(Double(readings.count)),
                "\(context): \(code) says count \(sensor["count"]?.serialized ?? "none"), pages hold \(readings.count)",
                sourceLocation: sourceLocation)
        #expect(Set(readings.map(\.milliseconds)).count == readings.count,
                "\(context): \(code) lists a timestamp twice", sourceLocation: sourceLocation)
        let latest = readings.max { $0.milliseconds < $1.milliseconds }
        let expected: JSONValue = latest.map {
            .object(["timestamp": .string(Timestamp(milliseconds: $0.milliseconds).rfc3339), "value": .number($0.value)])
        } ?? .null
        #expect(sensor["latest"] == expected, "\(context): \(code) latest \(sensor["latest"]?.serialized ?? "none")",
                sourceLocation: sourceLocation)
    }
    return all
}

/// Opens the data directory's database read-only (no server may be running)
/// and returns `PRAGMA integrity_check` plus any sensor whose kept
/// `reading_count` differs from its readings: "ok" when all is sound.
func auditDatabase(in dataDirectory: String) throws -> String {
    var configuration = Configuration()
    configuration.readonly = true
    let queue = try DatabaseQueue(path: SenseiApplication.databasePath(in: dataDirectory), configuration: configuration)
    defer { try? queue.close() }
    return try queue.read { db in
        var problems = try String.fetchAll(db, sql: "PRAGMA integrity_check").filter { $0 != "ok" }
        problems += try String.fetchAll(db, sql: """
            SELECT code || ': reading_count ' || reading_count || ', readings ' || n FROM (
                SELECT code, reading_count, (SELECT count(*) FROM readings WHERE sensor_id = sensors.id)
                    + (SELECT coalesce(sum(count), 0) FROM reading_blocks WHERE sensor_id = sensors.id) AS n
                FROM sensors) WHERE reading_count != n
            """)
        // A packed hour is wholly packed: no row of it left in `readings`, no
        // minute rollup, and a block that decodes to its count.
        problems += try String.fetchAll(db, sql: """
            SELECT 'hour ' || b.sensor_id || '/' || b.start || ' is packed and has rows' FROM reading_blocks b
            WHERE EXISTS (SELECT 1 FROM readings r WHERE r.sensor_id = b.sensor_id AND r.ts >= b.start AND r.ts < b.start + 3600000)
               OR EXISTS (SELECT 1 FROM rollups_minute m WHERE m.sensor_id = b.sensor_id AND m.start >= b.start AND m.start < b.start + 3600000)
            """)
        for row in try Row.fetchAll(db, sql: "SELECT sensor_id, start, count, data FROM reading_blocks") {
            let decoded = try? ReadingBlock.decode([UInt8](row[3] as Data))
            let start: Int64 = row[1]
            if decoded?.timestamps.count != row[2] as Int
                || decoded?.timestamps.contains(where: { PackedHours.start(of: $0) != start }) != false {
                problems.append("block \(row[0] as Int64)/\(start) does not decode to its hour and count")
            }
        }
        problems += try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").map { "foreign key: \($0)" }
        return problems.isEmpty ? "ok" : problems.joined(separator: "\n")
    }
}

/// Packed hours in the database (opens it read-only).
func packedHours(in dataDirectory: String) throws -> Int {
    var configuration = Configuration()
    configuration.readonly = true
    let queue = try DatabaseQueue(path: SenseiApplication.databasePath(in: dataDirectory), configuration: configuration)
    defer { try? queue.close() }
    return try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM reading_blocks") ?? 0 }
}

/// The rollups equal the readings they summarise (opens the store: no server may be running).
func expectRollupsMatchReadings(in dataDirectory: String, _ context: String,
                                sourceLocation: SourceLocation = #_sourceLocation) throws {
    let store = try SenseiStore(path: SenseiApplication.databasePath(in: dataDirectory))
    defer { try? store.close() }
    // Packed hours keep no minute rollups: unpacked, they must have them back exact.
    try store.pool.write { db in
        for row in try Row.fetchAll(db, sql: "SELECT sensor_id, start FROM reading_blocks") {
            try PackedHours.unpack(sensorID: row[0], hour: row[1], in: db)
        }
    }
    try expectRollupsMatchReadings(store, context, sourceLocation: sourceLocation)
}

extension Duration {
    /// "2.25 s", for the figures the tests print.
    var seconds: String {
        String(format: "%.2f s", Double(components.seconds) + Double(components.attoseconds) / 1e18)
    }
}
