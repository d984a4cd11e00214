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
    /// Several `sensei-server` processes on one PostgreSQL database are one
    /// hub (docs/postgresql.md, "Several nodes, one hub"): real processes, a
    /// real PostgreSQL, real webhook receivers. They run once, in the
    /// default (SQLite) pass: they make their own PostgreSQL nodes whatever
    /// the harness's backend.
    @Suite("Several nodes on one PostgreSQL", .enabled(if: TestBackend.current == .sqlite))
    struct MultiNodeTests {
        @Test func aWriteThroughOneNodeIsReadAndStreamedThroughTheOther() async throws {
            try await offThePool {
                try withCluster(["a", "b"]) { cluster in
                    let (a, b) = (cluster.client(0), cluster.client(1))
                    #expect(try a.post("/sensors/porch/data", json: #"{"value":20}"#).status == 201)
                    // Acknowledged by A: B reads it at once.
                    #expect(try b.get("/sensors/porch").json["count"] == .number(1))
                    let stream = try EventStreamReader(client: b, path: "/stream?sensor=porch")
                    let posted = ContinuousClock.now
                    #expect(try a.post("/sensors/porch/data", json: #"{"value":21.5}"#).status == 201)
                    // The first reading may reach b's stream after it opened (b reads
                    // a's events a round later): the one posted now is the one timed.
                    var event = try #require(try stream.nextEvent(within: 5))
                    if event.data["value"] == .number(20) { event = try #require(try stream.nextEvent(within: 5)) }
                    let delay = ContinuousClock.now - posted
                    print("several nodes: a reading written through node a reached node b's stream in \(delay)")
                    #expect(event.name == "reading")
                    #expect(event.data["sensor"] == .string("porch") && event.data["value"] == .number(21.5))
                    #expect(delay < .seconds(2))

                    // A token revoked through the command stops working on every node within 2 s.
                    let made = try ServerProcess.run(["token", "create", "--name", "kiosk", "--scope", "read",
                                                      "--database", cluster.databaseURL])
                    #expect(made.status == 0, "\(made.error)")
                    let kiosk = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
                    #expect(try a.get("/sensors", token: kiosk).status == 200)
                    #expect(try b.get("/sensors", token: kiosk).status == 200)
                    let revoked = try ServerProcess.run(["token", "revoke", "kiosk", "--database", cluster.databaseURL])
                    #expect(revoked.status == 0, "\(revoked.error)")
                    let refusedBy = ContinuousClock.now + .seconds(2)
                    #expect(waitUntil(seconds: 2.5) {
                        (try? a.get("/sensors", token: kiosk).status) == 401 && (try? b.get("/sensors", token: kiosk).status) == 401
                    })
                    #expect(ContinuousClock.now <= refusedBy + .milliseconds(500))
                }
            }
        }

        /// Another application's write transaction, in another database on
        /// the same PostgreSQL, held open: the nodes' events still flow (the
        /// server-wide `pg_snapshot_xmin` held them back for as long as it ran).
        @Test func aLongTransactionOfAnotherDatabaseHoldsNothingBack() async throws {
            try await offThePool {
                try withCluster(["a", "b"]) { cluster in
                    let server = try PostgresServer.shared.get()
                    let other = try server.database(for: "another application " + UUID().uuidString).database
                    let held = try server.session("BEGIN; CREATE TABLE held (x int); SELECT pg_sleep(120); COMMIT",
                                                  database: other)
                    defer {
                        _ = try? server.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(other)'")
                        _ = held.finish(seconds: 10)
                    }
                    // Its transaction has its id: it is running, and wrote.
                    #expect(waitUntil(seconds: 10) {
                        (try? server.psql("SELECT count(*) FROM pg_stat_activity WHERE datname = '\(other)' AND backend_xid IS NOT NULL")
                            .output.trimmingCharacters(in: .whitespacesAndNewlines)) == "1"
                    })
                    #expect(try cluster.client(0).post("/sensors/porch/data", json: #"{"value":20}"#).status == 201)
                    let stream = try EventStreamReader(client: cluster.client(1), path: "/stream?sensor=porch")
                    let posted = ContinuousClock.now
                    #expect(try cluster.client(0).post("/sensors/porch/data", json: #"{"value":21.5}"#).status == 201)
                    // The first reading may come too, if the stream opened before b read it.
                    var event = try stream.nextEvent(within: 10)
                    while let seen = event, seen.data["value"] == .number(20) { event = try stream.nextEvent(within: 10) }
                    print("several nodes: beside another database's open transaction, a reading reached the other node's stream in \(ContinuousClock.now - posted)")
                    #expect(event?.name == "reading" && event?.data["value"] == .number(21.5), "\(cluster.logs)")
                }
            }
        }

        /// 8 writers, half through each node; node a is SIGKILLed twice and
        /// restarted while node b keeps taking writes. Every reading that got a
        /// 201 is there once, with its value, and nothing else is.
        @Test func aNodeKilledTwiceUnderLoadLosesNothingAcknowledged() async throws {
            try await offThePool {
                try withCluster(["a", "b"]) { cluster in
                    let ledger = Mutex<[Int: [Int64: Double]]>([:])  // writer → timestamp → value acknowledged
                    let attempted = Mutex<[Int: [Int64: Double]]>([:])
                    let stop = Atomic<Bool>(false)
                    let acknowledged = Atomic<Int>(0)
                    let writers = ThreadGroup()
                    let base: Int64 = 1_700_000_000_000
                    writers.start(8) { writer in
                        var round: Int64 = 0
                        while !stop.load(ordering: .relaxed) {
                            round += 1
                            let timestamp = base + round * 1000 + Int64(writer)
                            let value = Double(writer) * 1_000_000 + Double(round)
                            attempted.withLock { $0[writer, default: [:]][timestamp] = value }
                            // Even writers through node a (when it is up), odd through node b.
                            let client = cluster.client(writer % 2 == 0 ? 0 : 1)
                            let body = #"{"timestamp":\#(Double(timestamp) / 1000),"value":\#(value)}"#
                            guard let response = try? client.post("/sensors/w\(writer)/data", json: body),
                                  response.status == 201 else { continue }
                            ledger.withLock { $0[writer, default: [:]][timestamp] = value }
                            acknowledged.add(1, ordering: .relaxed)
                        }
                    }
                    for kill in 1...2 {
                        let before = acknowledged.load(ordering: .relaxed)
                        #expect(waitUntil(seconds: 20) { acknowledged.load(ordering: .relaxed) >= before + 300 },
                                "kill \(kill): writes did not go on")
                        cluster.kill(0)
                        // Node b alone keeps taking writes.
                        let alone = acknowledged.load(ordering: .relaxed)
                        #expect(waitUntil(seconds: 20) { acknowledged.load(ordering: .relaxed) >= alone + 200 },
                                "kill \(kill): node b took no writes while node a was down")
                        try cluster.restart(0)
                    }
                    let last = acknowledged.load(ordering: .relaxed)
                    #expect(waitUntil(seconds: 20) { acknowledged.load(ordering: .relaxed) >= last + 200 })
                    stop.store(true, ordering: .relaxed)
                    #expect(writers.join(seconds: 30))

                    let b = cluster.client(1)
                    let (acked, tried) = (ledger.withLock { $0 }, attempted.withLock { $0 })
                    for writer in 0..<8 {
                        let stored = try readAll(b, "w\(writer)")
                        let wanted = acked[writer] ?? [:]
                        #expect(!wanted.isEmpty, "writer \(writer): nothing acknowledged")
                        for (timestamp, value) in wanted where stored[timestamp] != value {
                            Issue.record("writer \(writer): acknowledged \(timestamp)=\(value), stored \(String(describing: stored[timestamp]))")
                        }
                        // Anything else stored was sent (a request cut off by the kill may or may not have landed).
                        for (timestamp, value) in stored where tried[writer]?[timestamp] != value {
                            Issue.record("writer \(writer): \(timestamp)=\(value) stored but never sent")
                        }
                        #expect(try b.get("/sensors/w\(writer)").json["count"] == .number(Double(stored.count)))
                    }
                    print("several nodes: \(acknowledged.load(ordering: .relaxed)) writes acknowledged by 2 nodes while node a was SIGKILLed twice; all there once")
                }
            }
        }

        /// A rule made through one node fires and resolves once across the
        /// nodes; when the node delivering it is killed, the other takes the
        /// outbox over and the receiver gets the notification once.
        @Test func anAlertFiresAndResolvesOnceAcrossTheNodesAlsoWhenTheDelivererIsKilled() async throws {
            try await offThePool {
                let receiver = try WebhookReceiver()
                try withCluster(["a", "b"], ["--alert-tick", "0.2", "--alert-retry", "0.2"]) { cluster in
                    // The lease: held by one node, which delivers.
                    var holder = -1
                    #expect(waitUntil(seconds: 10) {
                        holder = (0...1).first { cluster.holdsLease($0) } ?? -1
                        return holder >= 0
                    })
                    let other = 1 - holder
                    #expect(!cluster.holdsLease(other))
                    #expect(try cluster.client(other).post("/sensors/boiler/data", json: #"{"value":60}"#).status == 201)
                    // Made, and written to, through the node that does not evaluate.
                    let created = try cluster.client(other).post("/alerts", json: #"""
                        {"name":"Boiler hot","sensor":"boiler","condition":"above","threshold":80,
                         "notify":["\#(receiver.url())"]}
                        """#)
                    #expect(created.status == 201)
                    let id = try #require(try created.json["id"]?.intValue)
                    let stream = try EventStreamReader(client: cluster.client(other), path: "/stream?sensor=boiler")
                    #expect(try cluster.client(other).post("/sensors/boiler/data", json: #"{"value":90}"#).status == 201)
                    // The holder's evaluation reaches this node's stream as an alert event.
                    var firing: JSONValue?
                    while firing == nil, let event = try stream.nextEvent(within: 5) {
                        if event.name == "alert" { firing = event.data }
                    }
                    #expect(firing?["change"] == .string("state") && firing?["alert"]?["state"] == .string("firing"),
                            "no firing on node \(other)'s stream; lease holder \(holder)\n\(cluster.logs)")
                    #expect(waitUntil(seconds: 10) { receiver.accepted.count == 1 })
                    #expect(receiver.accepted.first?.json?["state"] == .string("firing"))
                    #expect(try cluster.client(other).get("/alerts/\(id)").json["state"] == .string("firing"))

                    // The receiver refuses for now: the holder keeps retrying the
                    // resolution, and is killed while it does.
                    receiver.answer(Array(repeating: 503, count: 10_000))
                    #expect(try cluster.client(other).post("/sensors/boiler/data", json: #"{"value":20}"#).status == 201)
                    #expect(waitUntil(seconds: 10) { receiver.requests.count >= 3 })
                    cluster.kill(holder)
                    let killed = ContinuousClock.now
                    receiver.answer([])
                    #expect(waitUntil(seconds: 30) { receiver.accepted.count == 2 }, "no node took the delivery over\n\(cluster.logs)")
                    print("several nodes: the resolution left by a killed node was delivered \(ContinuousClock.now - killed) after the kill")
                    #expect(receiver.accepted.last?.json?["state"] == .string("resolved"))
                    #expect(waitUntil(seconds: 5) { cluster.holdsLease(other) })
                    // Once each: nothing more comes.
                    try cluster.restart(holder)
                    #expect(try cluster.client(holder).get("/alerts/\(id)").json["state"] == .string("ok"))
                    #expect(!waitUntil(seconds: 2) { receiver.accepted.count > 2 })
                    #expect(receiver.accepted.map { $0.json?["state"] } == [.string("firing"), .string("resolved")])
                }
            }
        }
    }
}

/// Every reading of `code`, by timestamp (milliseconds).
private func readAll(_ client: TestHTTPClient, _ code: String) throws -> [Int64: Double] {
    var readings: [Int64: Double] = [:]
    var before: String?
    while true {
        let page = try client.get("/sensors/\(code)/data?limit=10000" + (before.map { "&before=\($0)" } ?? ""))
        guard page.status == 200, case .array(let items)? = try page.json["data"] else { break }
        for item in items {
            guard let text = item["timestamp"]?.stringValue, let time = Timestamp(rfc3339: text),
                  case .number(let value)? = item["value"] else { continue }
            readings[time.milliseconds] = value
        }
        guard items.count == 10000, let oldest = items.last?["timestamp"]?.stringValue,
              let time = Timestamp(rfc3339: oldest) else { break }
        before = Timestamp(milliseconds: time.milliseconds - 1).rfc3339
    }
    return readings
}

/// Nodes started as real processes on one new PostgreSQL database, each
/// with its own data directory and `--node-id`, one preshared admin token.
private final class Cluster: Sendable {
    let databaseURL: String
    private let names: [String]
    private let directory: String
    private let arguments: [String]
    private let nodes: Mutex<[(process: ServerProcess?, client: TestHTTPClient)]>
    /// The logs of nodes killed so far.
    private let gone = Mutex<[String]>([])

    init(names: [String], directory: String, arguments: [String]) throws {
        let url = try PostgresServer.shared.get().database(for: directory + "/cluster")
        databaseURL = "postgresql://\(url.user)@\(url.host ?? "127.0.0.1"):\(url.port)/\(url.database)?sslmode=disable"
        self.names = names
        self.directory = directory
        self.arguments = arguments
        nodes = Mutex([])
        for index in names.indices {
            let started = try start(index)
            nodes.withLock { $0.append(started) }
        }
    }

    func client(_ index: Int) -> TestHTTPClient { nodes.withLock { $0[index].client } }

    /// Every node's log so far (a killed node's too), for a failure's message:
    /// what each node did with the lease, the rules and the deliveries.
    var logs: String {
        let current = nodes.withLock { $0 }.enumerated().compactMap { index, node in
            node.process.map { logSection(index, $0) }
        }
        return (gone.withLock { $0 } + current).joined(separator: "\n")
    }

    func holdsLease(_ index: Int) -> Bool {
        (try? client(index).get("/health").json["lease"]) == .bool(true)
    }

    func kill(_ index: Int) {
        let process = nodes.withLock { nodes in
            defer { nodes[index].process = nil }
            return nodes[index].process
        }
        #expect(process?.stop(signal: SIGKILL) == SIGKILL)
        if let process { gone.withLock { $0.append(logSection(index, process, killed: true)) } }
    }

    private func logSection(_ index: Int, _ process: ServerProcess, killed: Bool = false) -> String {
        "--- node \(names[index])\(killed ? ", killed" : ""):\n\(process.log)"
    }

    func restart(_ index: Int) throws {
        let started = try start(index)
        nodes.withLock { $0[index] = started }
    }

    func stopAll() {
        for node in nodes.withLock({ $0 }) { _ = node.process?.stop() }
    }

    private func start(_ index: Int) throws -> (process: ServerProcess?, client: TestHTTPClient) {
        let data = directory + "/" + names[index]
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let (process, port) = try ServerProcess.start(
            dataDirectory: data, environment: ["SENSEI_TOKEN": childToken, "SENSEI_DATABASE_URL": databaseURL],
            extraArguments: ["--node-id", names[index], "--threads", "4"] + arguments)
        return (process, TestHTTPClient(port: port, token: childToken))
    }
}

private func withCluster(_ names: [String], _ arguments: [String] = [], _ body: (Cluster) throws -> Void) throws {
    try withScratchDirectory { directory in
        let cluster = try Cluster(names: names, directory: directory, arguments: arguments)
        defer { cluster.stopAll() }
        try body(cluster)
    }
}
