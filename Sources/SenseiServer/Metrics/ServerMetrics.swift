import Prometheus
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What `GET /metrics` shows, kept in one Prometheus registry.
///
/// Events are counted where they happen, each with one atomic add or one
/// short lock (`RouteMetrics` for requests; ingested readings from the
/// routes; commits from the group-commit writer). Sizes and levels (the
/// database files, sensors, connections, memory) are read when scraped.
final class ServerMetrics: Sendable {
    /// The text exposition format, version 0.0.4.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"
    /// Writes in one group commit: from one to every connection's.
    static let commitWriteBuckets: [Double] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    /// Readings in one group commit: single POSTs up to many large batches.
    static let commitReadingBuckets: [Double] = [
        1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000,
    ]

    let registry = PrometheusCollectorRegistry()
    private let readingsIngested: Counter
    private let commits: Counter
    private let commitWrites: ValueHistogram
    private let commitReadings: ValueHistogram
    private let databaseSize: Gauge
    private let sensors: Gauge
    private let connectionsOpen: Gauge
    private let requestsInFlight: Gauge
    private let residentMemory: Gauge
    private let lease: Gauge
    /// `sensei_database_info` is made at the first exposition (the link is not known before).
    private let databaseNamed = Atomic<Bool>(false)
    /// Not held strongly: the server's handler holds the routes, which hold this.
    private let http = Mutex<WeakHTTPServer>(WeakHTTPServer())

    init() {
        readingsIngested = registry.makeCounter(
            name: "sensei_readings_ingested_total",
            help: "Readings stored and acknowledged with 201, on the v1 and the legacy route.")
        commits = registry.makeCounter(
            name: "sensei_commits_total", help: "Group commits: transactions of the writer thread that committed.")
        commitWrites = registry.makeValueHistogram(
            name: "sensei_commit_batch_size", buckets: Self.commitWriteBuckets,
            help: "Writes (requests' inserts and other changes) in one group commit.")
        commitReadings = registry.makeValueHistogram(
            name: "sensei_commit_batch_readings", buckets: Self.commitReadingBuckets,
            help: "Readings stored by one group commit.")
        databaseSize = registry.makeGauge(
            name: "sensei_database_size_bytes", help: "Size of the SQLite database file and its write-ahead log.")
        sensors = registry.makeGauge(name: "sensei_sensors", help: "Sensors in the database.")
        connectionsOpen = registry.makeGauge(name: "sensei_connections_open", help: "HTTP connections open.")
        requestsInFlight = registry.makeGauge(
            name: "sensei_http_requests_in_flight",
            help: "HTTP requests received (their headers at least) and not yet answered and sent.")
        residentMemory = registry.makeGauge(
            name: "process_resident_memory_bytes", help: "Resident memory size in bytes.")
        lease = registry.makeGauge(
            name: "sensei_node_lease",
            help: "1 while this node holds the lease: it evaluates and delivers alerts, compacts and sweeps.")
        let startTime = registry.makeGauge(
            name: "process_start_time_seconds", help: "Start time of the process since the Unix epoch in seconds.")
        startTime.set(to: ProcessStats.startTimeSeconds() ?? Double(time(nil)))
    }

    /// `accepted` readings were stored and are being acknowledged with 201.
    func readingsAccepted(_ accepted: Int) {
        readingsIngested.increment(by: Int64(accepted))
    }

    /// Counts the store's commits from its writer thread.
    func observeCommits(of store: any ReadingStore) {
        // The metrics, not `self`: the store would otherwise keep this alive.
        store.observeCommits(CommitObserver { [commits, commitWrites, commitReadings] commit in
            // Another node's commit, told here for the stream: not this node's.
            guard commit.writes > 0 else { return }
            commits.increment()
            commitWrites.record(Double(commit.writes))
            // MetricsTests checks the sum.
            commitReadings.record(Double(commit.stored.reduce(0) { $0 + $1.count }))
        })
    }

    /// Where connections and requests in flight are read from when scraped.
    func attach(_ server: HTTPServer) {
        http.withLock { $0.server = server }
    }

    /// The exposition: the levels read now, then every metric.
    func exposition(store: any SensorStore & MaintenanceStore, link: any NodeLink) throws -> Response {
        if !databaseNamed.exchange(true, ordering: .relaxed) {
            registry.makeGauge(name: "sensei_database_info", labels: [("backend", link.backend), ("node", link.node)],
                               help: "1, labelled with the database this node stores in and its name.").set(to: 1)
        }
        lease.set(to: link.holdsLease ? 1 : 0)
        databaseSize.set(to: Double(store.storedBytes()))
        sensors.set(to: Double(try store.sensorCount()))
        if let server = http.withLock({ $0.server }) {
            connectionsOpen.set(to: Double(server.openConnections))
            requestsInFlight.set(to: Double(server.requestsInFlight))
        }
        if let bytes = ProcessStats.residentMemoryBytes() { residentMemory.set(to: Double(bytes)) }
        var body: [UInt8] = []
        body.reserveCapacity(32 * 1024)
        registry.emit(into: &body)
        return Response(status: 200, headers: [("Content-Type", Self.contentType)], body: body)
    }
}

private struct WeakHTTPServer {
    weak var server: HTTPServer?
}
