import Prometheus
import Synchronization

/// Requests by route and status, and their durations by route: the HTTP
/// server tells it of every response as it queues it.
///
/// A route is its pattern (`POST /sensors/:id/data`), never the path asked
/// for, so the labels stay few whatever clients send; requests no route takes
/// (404, 405) are `unmatched`. Everything a request needs is made up front
/// (one histogram a route, its label sets rendered) or once per route and
/// status (the counter, on its first response), so answering one costs an
/// atomic load and add for the count and one short lock for the histogram:
/// no allocation, no string built.
final class RouteMetrics: HTTPServerObserver {
    /// 0.1 ms (a cached `GET /sensors`) to 1 s (a long export, or a commit
    /// waiting on a slow disk).
    static let durationBuckets: [Double] = [
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
    ]
    /// Statuses this server answers with; any other still counts, through a
    /// slower path.
    static let statuses = [200, 201, 204, 400, 401, 403, 404, 405, 409, 413, 415, 422, 500, 503]
    static let requestsName = "sensei_http_requests_total"
    static let requestsHelp = "HTTP requests answered, by route pattern and status."

    private let registry: PrometheusCollectorRegistry
    private let router: Router
    /// One for each route, by index, then one for `unmatched`.
    private let series: [Series]

    init(registry: PrometheusCollectorRegistry, router: Router) {
        self.registry = registry
        self.router = router
        let labels = router.routes.map { "\($0.method) \($0.pattern)" } + ["unmatched"]
        series = labels.map { label in
            Series(label: label, duration: registry.makeValueHistogram(
                name: "sensei_http_request_duration_seconds", labels: [("route", label)],
                buckets: Self.durationBuckets,
                help: "From a request's arrival (its headers read) to its response being queued, by route pattern;"
                    + " a write's includes its group commit."))
        }
    }

    func responded(method: String, path: String, route: Int, status: Int, seconds: Double) {
        // Untagged: refused before routing (413, 503). Those are rare, so
        // routing them again here costs the requests that are served nothing.
        let index = route >= 0 && route < series.count ? route : Self.route(method, path, in: router)
        let series = series[index]
        series.duration.record(seconds)
        series.counter(for: status, in: registry).increment()
    }

    /// The series index of what `router` makes of the request.
    static func route(_ method: String, _ path: String, in router: Router) -> Int {
        if case .found(let route, _) = router.match(method: method, path: path) { return route.index }
        return router.unmatchedIndex
    }

    /// The counters of one route.
    private final class Series: Sendable {
        let label: String
        let duration: ValueHistogram
        /// By the index of the status in `statuses`.
        private let counters: [Slot]
        private let otherCounters = Mutex<[Int: Counter]>([:])

        init(label: String, duration: ValueHistogram) {
            self.label = label
            self.duration = duration
            counters = RouteMetrics.statuses.map { _ in Slot() }
        }

        func counter(for status: Int, in registry: PrometheusCollectorRegistry) -> Counter {
            guard let slot = RouteMetrics.statusSlot(status) else {
                return otherCounters.withLock { counters in
                    if let counter = counters[status] { return counter }
                    let counter = make(status, in: registry)
                    counters[status] = counter
                    return counter
                }
            }
            return counters[slot].counter { make(status, in: registry) }
        }

        private func make(_ status: Int, in registry: PrometheusCollectorRegistry) -> Counter {
            registry.makeCounter(name: RouteMetrics.requestsName, labels: [("route", label), ("status", String(status))],
                                 help: RouteMetrics.requestsHelp)
        }
    }

    /// A counter made on first use. Not `AtomicLazyReference`, whose `load`
    /// is an unspecialised generic call: 640 instructions against 10 here.
    private final class Slot: Sendable {
        private let made = Atomic<Unmanaged<Counter>?>(nil)

        func counter(_ make: () -> Counter) -> Counter {
            if let counter = made.load(ordering: .acquiring) { return counter.takeUnretainedValue() }
            // Racing threads may both make it; the registry gives both the one it holds.
            let counter = Unmanaged.passRetained(make())
            let (stored, existing) = made.compareExchange(expected: nil, desired: counter, ordering: .acquiringAndReleasing)
            if stored { return counter.takeUnretainedValue() }
            counter.release()
            return existing!.takeUnretainedValue()
        }

        deinit {
            made.load(ordering: .relaxed)?.release()
        }
    }

    /// The index of each status in `statuses`, -1 for the others.
    private static let slotByStatus: [Int8] = {
        var table = [Int8](repeating: -1, count: 600)
        for (slot, status) in statuses.enumerated() { table[status] = Int8(slot) }
        return table
    }()

    /// The index of `status` in `statuses`.
    fileprivate static func statusSlot(_ status: Int) -> Int? {
        guard status >= 0 && status < slotByStatus.count, slotByStatus[status] >= 0 else { return nil }
        return Int(slotByStatus[status])
    }
}

extension Router {
    /// The route tag of a request no route takes: one past the last index.
    var unmatchedIndex: Int { routes.count }
}
