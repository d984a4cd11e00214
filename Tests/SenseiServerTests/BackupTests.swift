import Foundation
import GRDB
import Testing
import SenseiTestSupport
import SenseiModels
import Synchronization
@testable import SenseiServer

/// `sensei-server backup` and `restore`, run as the real binary against
/// servers that are serving (and ingesting) at the time.
@Suite("Backup and restore", .sqliteOnly)
struct BackupTests {
    /// Its body off the pool, as the stress suites' are: four writer threads
    /// flood a child server, and an async test's every resumption queued
    /// behind the other tests' work on the cooperative pool (68 s in the
    /// full run, past the child's 30 s compaction interval, which packed the
    /// history).
    @Test func backupWhileIngestingHoldsEveryAcknowledgedReading() async throws {
        try await offThePool {
            try withScratchDirectory { directory in
                let data = directory + "/data"
                let (server, port) = try ServerProcess.start(dataDirectory: data, environment: ["SENSEI_TOKEN": "backup-test"])
                defer { _ = server.stop() }
                let client = TestHTTPClient(port: port, token: "backup-test")
                // Some history first, so that the copy has pages to go through.
                for sensor in 0..<4 {
                    let items = (0..<5_000).map { #"{"timestamp":\#(1_600_000_000 + $0 * 30),"value":\#($0)}"# }
                    #expect(try client.post("/sensors/h\(sensor)/data", json: #"{"data":[\#(items.joined(separator: ","))]}"#).status == 201)
                }

                let ingest = Ingestion(client: client, writers: 4)
                ingest.waitFor(acknowledged: 100)
                let before = ingest.acknowledged()
                let backupPath = directory + "/copy.sqlite"
                let backup = try runTool(ServerProcess.executable.path, ["backup", backupPath, "--data-dir", data], timeout: 120)
                let during = ingest.acknowledged().count - before.count
                ingest.stop()

                #expect(backup.status == 0, "\(backup.error)")
                #expect(backup.output.hasPrefix("backed up "))
                #expect(ingest.failures == 0, "POSTs failed while the backup ran")
                print("backup: \(backup.output.trimmingCharacters(in: .newlines)); \(during) POSTs acknowledged meanwhile")

                let copy = try openReadOnly(backupPath)
                try copy.read { db in
                    #expect(try String.fetchAll(db, sql: "PRAGMA integrity_check") == ["ok"])
                    #expect(try Int.fetchOne(db, sql: "PRAGMA user_version") == SenseiStore.schemaVersion)
                    #expect(try String.fetchOne(db, sql: "PRAGMA journal_mode") == "delete")
                    #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM readings WHERE sensor_id IN (SELECT id FROM sensors WHERE code GLOB 'h*')") == 20_000)
                    let stored = try Set(Row.fetchAll(db, sql: """
                        SELECT code, ts FROM readings JOIN sensors ON sensors.id = sensor_id WHERE code GLOB 'w*'
                        """).map { Acknowledged(code: $0[0], timestamp: $0[1]) })
                    let missing = before.subtracting(stored)
                    #expect(missing.isEmpty, "\(missing.count) of \(before.count) readings acknowledged before the backup are missing")
                }
                let attributes = try FileManager.default.attributesOfItem(atPath: backupPath)
                #expect((attributes[.posixPermissions] as? Int) == 0o600)
                #expect(!FileManager.default.fileExists(atPath: backupPath + ".partial"))
            }
        }
    }

    @Test func restoreIntoAFreshDirectoryServesTheReadings() async throws {
        try await withTemporaryDirectory { directory in
            let backupPath = directory + "/backup.sqlite"
            let items = (0..<300).map { #"{"timestamp":\#(1_700_000_000 + $0 * 60),"value":\#(Double($0) / 2)}"# }
            // Backed up while this in-process server is running.
            let (original, readerToken) = try await withTestServer { server in
                #expect(try await server.writer.post("/sensors/kitchen/data", json: #"{"data":[\#(items.joined(separator: ","))]}"#).status == 201)
                let result = try await runTool(ServerProcess.executable.path, ["backup", backupPath, "--data-dir", server.dataDirectory], timeout: 60)
                #expect(result.status == 0, "\(result.error)")
                return (try await server.reader.get("/sensors/kitchen/data?limit=1000").text, server.reader.token!)
            }

            let restoredData = directory + "/restored"
            let restore = try await runTool(ServerProcess.executable.path, ["restore", backupPath, "--data-dir", restoredData], timeout: 60)
            #expect(restore.status == 0, "\(restore.error)")
            #expect(restore.output.contains("restored 1 sensor, 300 readings"))
            #expect(!restore.output.contains("previous database"))  // there was none

            let (server, port) = try await ServerProcess.start(dataDirectory: restoredData, environment: ["SENSEI_TOKEN": ""])
            // The tokens came across too: the old reader token reads the old readings.
            let reader = TestHTTPClient(port: port, token: readerToken)
            #expect(try await reader.get("/sensors/kitchen/data?limit=1000").text == original)
            #expect(!server.log.contains("created admin token"))
            #expect(await server.stop() == 0)

            // Restoring over a database keeps the old one aside, whole.
            let again = try await runTool(ServerProcess.executable.path, ["restore", backupPath, "--data-dir", restoredData], timeout: 60)
            #expect(again.status == 0, "\(again.error)")
            let aside = try FileManager.default.contentsOfDirectory(atPath: restoredData)
                .filter { $0.hasPrefix("sensei.sqlite.before-restore-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }
            #expect(aside.count == 1)
            #expect(again.output.contains("the previous database is kept as \(restoredData)/\(aside.first ?? "?")"))
            let kept = try SenseiStore.inspect(restoredData + "/" + (aside.first ?? "?"))
            #expect(kept.readings == 300)
        }
    }

    /// Issue 16: a store whose history is packed into blocks (and has late
    /// and replaced readings over packed hours, and recent raw rows) backs up
    /// and restores to a server that answers every query byte for byte as
    /// the original did.
    @Test func aCompactedStoreBacksUpAndRestoresExactly() async throws {
        try await withTemporaryDirectory { directory in
            let backupPath = directory + "/packed.sqlite"
            let start = 1_700_000_000  // 2023-11-14: long packable
            // Integers, hundredths and full doubles, 900 readings a minute apart (15 hours) each.
            let shapes: [(code: String, value: (Int) -> String)] = [
                ("whole", { "\($0 % 17 - 8)" }),
                ("hundredths", { String(format: "%.2f", 20 + sin(Double($0) / 40) * 3) }),
                ("doubles", { "\(Double($0) * 1.000_000_1 / 7)" }),
            ]
            let queries = ["data?limit=1000&order=asc", "data?limit=37", "data.csv?limit=1000",
                           "data?limit=100&after=\(start + 3_000)&before=\(start + 30_000)",
                           "data?buckets=23&after=\(start)&before=\(start + 900 * 60)"]
            let (answers, readerToken) = try await withTestServer(configure: { $0.compactionInterval = 0.05 }) {
                server in
                for shape in shapes {
                    let items = (0..<900).map { #"{"timestamp":\#(start + $0 * 60),"value":\#(shape.value($0))}"# }
                    #expect(try await server.writer.post("/sensors/\(shape.code)/data",
                                                   json: #"{"data":[\#(items.joined(separator: ","))]}"#).status == 201)
                }
                func packedReadings() throws -> Int {
                    try server.store.pool.read { db in
                        try Int.fetchOne(db, sql: "SELECT coalesce(sum(count), 0) FROM reading_blocks") ?? 0
                    }
                }
                try await eventually("every old reading packed") { try packedReadings() == 2_700 }
                // Over the packed hours: a late reading, a replaced value; and a fresh raw one.
                #expect(try await server.writer.post("/sensors/whole/data",
                                               json: #"{"data":[{"timestamp":\#(start + 90),"value":99},{"timestamp":\#(start + 120),"value":-1}]}"#).status == 201)
                #expect(try await server.writer.post("/sensors/hundredths/data", json: #"{"value":21.5}"#).status == 201)
                let result = try await runTool(ServerProcess.executable.path,
                                         ["backup", backupPath, "--data-dir", server.dataDirectory], timeout: 60)
                #expect(result.status == 0, "\(result.error)")
                var answers = [try await server.reader.get("/sensors").text]
                for shape in shapes {
                    for query in queries { answers.append(try await server.reader.get("/sensors/\(shape.code)/\(query)").text) }
                }
                return (answers, server.reader.token!)
            }
            try await openReadOnly(backupPath).read { db throws in
                #expect(try String.fetchAll(db, sql: "PRAGMA integrity_check") == ["ok"])
                #expect(try Int.fetchOne(db, sql: "SELECT coalesce(sum(count), 0) FROM reading_blocks") ?? 0 > 0)
            }

            let restoredData = directory + "/restored"
            let restore = try await runTool(ServerProcess.executable.path, ["restore", backupPath, "--data-dir", restoredData], timeout: 60)
            #expect(restore.status == 0, "\(restore.error)")
            #expect(restore.output.contains("restored 3 sensors, 2702 readings"), "\(restore.output)")
            let (server, port) = try await ServerProcess.start(dataDirectory: restoredData, environment: ["SENSEI_TOKEN": ""])
            let reader = TestHTTPClient(port: port, token: readerToken)
            var restored = [try await reader.get("/sensors").text]
            for shape in shapes {
                for query in queries { restored.append(try await reader.get("/sensors/\(shape.code)/\(query)").text) }
            }
            #expect(await server.stop() == 0)
            #expect(restored.count == answers.count)
            for (index, (got, expected)) in zip(restored, answers).enumerated() {
                #expect(got == expected, "answer \(index) differs after the restore")
            }
        }
    }

    @Test func restoreRefusesWhatIsNotASenseiDatabase() async throws {
        try await withTemporaryDirectory { directory in
            let data = directory + "/data"
            try await withTestServer(dataDirectory: data) { server async throws in
                #expect(try await server.writer.post("/sensors/keep/data", json: #"{"value":1}"#).status == 201)
            }
            let text = directory + "/notes.txt"
            try "hello\n".write(toFile: text, atomically: true, encoding: .utf8)
            let foreign = directory + "/foreign.sqlite"
            try await DatabaseQueue(path: foreign).write { db in try db.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)") }
            let newer = directory + "/newer.sqlite"
            try FileManager.default.copyItem(atPath: data + "/sensei.sqlite", toPath: newer)
            try await DatabaseQueue(path: newer).writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA user_version = \(SenseiStore.schemaVersion + 1)")
            }

            let cases = [
                (text, "is not a Sensei database: not an SQLite database"),
                (foreign, "is not a Sensei database: no Sensei schema in it (user_version 0)"),
                (newer, "is not a Sensei database: schema version \(SenseiStore.schemaVersion + 1) is newer"),
                (directory + "/missing.sqlite", "no file at \(directory)/missing.sqlite"),
            ]
            for (path, message) in cases {
                let result = try await runTool(ServerProcess.executable.path, ["restore", path, "--data-dir", data], timeout: 60)
                #expect(result.status == 1, "\(path): \(result.error)")
                #expect(result.error.contains(message), "\(result.error)")
            }
            // The database in place is untouched and nothing was left behind.
            #expect(try SenseiStore.inspect(data + "/sensei.sqlite").readings == 1)
            let left = try FileManager.default.contentsOfDirectory(atPath: data)
            #expect(!left.contains { $0.contains("before-restore") || $0.contains("restoring") })
        }
    }

    @Test func restoreRefusesWhileAServerRunsOnTheDirectory() async throws {
        try await withTemporaryDirectory { directory in
            let backupPath = directory + "/backup.sqlite"
            try await withTestServer { server in
                #expect(try await server.writer.post("/sensors/a/data", json: #"{"value":1}"#).status == 201)
                let backup = try await runTool(ServerProcess.executable.path, ["backup", backupPath, "--data-dir", server.dataDirectory], timeout: 60)
                #expect(backup.status == 0, "\(backup.error)")
                #expect(try await server.writer.post("/sensors/a/data", json: #"{"value":2}"#).status == 201)

                let refused = try await runTool(ServerProcess.executable.path, ["restore", backupPath, "--data-dir", server.dataDirectory], timeout: 60)
                #expect(refused.status == 1)
                #expect(refused.error.contains("is in use by sensei-server serve, pid \(getpid())"), "\(refused.error)")
                // Still serving, with both readings.
                #expect(try await server.reader.get("/sensors/a").json["count"] == .number(2))
            }
        }
    }

    @Test func aServerDoesNotStartOnADirectoryInUse() async throws {
        try await withTemporaryDirectory { directory in
            // As while a restore swaps the database, or a first server serves.
            let lock = try DataDirectoryLock(directory: directory, holder: "sensei-server restore")
            var configuration = SenseiApplication.Configuration()
            configuration.dataDirectory = directory
            #expect(throws: DataDirectoryLockError.self) {
                _ = try SenseiApplication(configuration: configuration, logger: .init(label: "test"))
            }
            let refused = try await runTool(ServerProcess.executable.path, ["serve", "--port", "0", "--data-dir", directory], timeout: 30)
            #expect(refused.status == 1)
            #expect(refused.error.contains("\(directory) is in use by sensei-server restore, pid \(getpid())"), "\(refused.error)")
            lock.release()
            // Released: a server starts (and a crashed holder would release it too: the kernel drops flocks).
            try await withTestServer(dataDirectory: directory) { server async throws in
                #expect(try await server.anonymous.get("/health").status == 200)
            }
        }
    }

    @Test func backupRefusesToOverwriteOrToInventADatabase() async throws {
        try await withTemporaryDirectory { directory in
            let data = directory + "/data"
            try await withTestServer(dataDirectory: data) { _ in }
            let target = directory + "/backup.sqlite"
            try "precious\n".write(toFile: target, atomically: true, encoding: .utf8)

            let refused = try await runTool(ServerProcess.executable.path, ["backup", target, "--data-dir", data], timeout: 60)
            #expect(refused.status == 1)
            #expect(refused.error.contains("\(target) exists: give --force to replace it"))
            #expect(try String(contentsOfFile: target, encoding: .utf8) == "precious\n")

            let forced = try await runTool(ServerProcess.executable.path, ["backup", target, "--data-dir", data, "--force"], timeout: 60)
            #expect(forced.status == 0, "\(forced.error)")
            #expect(try SenseiStore.inspect(target).schemaVersion == SenseiStore.schemaVersion)

            let live = try await runTool(ServerProcess.executable.path, ["backup", data + "/sensei.sqlite", "--data-dir", data, "--force"], timeout: 60)
            #expect(live.status == 1)
            #expect(live.error.contains("is the live database itself"))

            let nowhere = directory + "/no-data"
            let missing = try await runTool(ServerProcess.executable.path, ["backup", directory + "/b2.sqlite", "--data-dir", nowhere], timeout: 60)
            #expect(missing.status == 1)
            #expect(missing.error.contains("no database at \(nowhere)/sensei.sqlite"))
            #expect(!FileManager.default.fileExists(atPath: nowhere))
        }
    }
}

private func openReadOnly(_ path: String) throws -> DatabaseQueue {
    var configuration = Configuration()
    configuration.readonly = true
    return try DatabaseQueue(path: path, configuration: configuration)
}

/// One reading a writer had acknowledged (201).
private struct Acknowledged: Hashable {
    let code: String
    let timestamp: Int64
}

/// Writers POSTing single readings, each to its own sensor with rising
/// timestamps, until stopped; remembers every 201.
private final class Ingestion: @unchecked Sendable {
    private let lock = NSLock()
    private var readings: Set<Acknowledged> = []
    private var failed = 0
    private let stopping = Atomic<Bool>(false)
    private var threads: [Thread] = []

    init(client: TestHTTPClient, writers: Int) {
        threads = (0..<writers).map { writer in
            Thread { [self] in
                var index: Int64 = 0
                // Bounded: a few minutes of POSTs at most, even if never stopped.
                while !stopping.load(ordering: .relaxed) && index < 200_000 {
                    let timestamp = 1_700_000_000_000 + index
                    index += 1
                    let body = #"{"timestamp":\#(Double(timestamp) / 1000),"value":\#(index)}"#
                    let status = (try? client.post("/sensors/w\(writer)/data", json: body))?.status
                    lock.withLock {
                        if status == 201 {
                            readings.insert(Acknowledged(code: "w\(writer)", timestamp: timestamp))
                        } else {
                            failed += 1
                        }
                    }
                }
            }
        }
        threads.forEach { $0.start() }
    }

    func acknowledged() -> Set<Acknowledged> { lock.withLock { readings } }
    var failures: Int { lock.withLock { failed } }

    func waitFor(acknowledged count: Int) {
        waitUntil(seconds: 30) { acknowledged().count >= count }
    }

    func stop() {
        stopping.store(true, ordering: .relaxed)
        #expect(waitUntil(seconds: 30) { !threads.contains(where: { $0.isExecuting }) }, "writers still running after 30 s")
    }
}
