/// `GET /metrics`: the Prometheus text exposition, for a read token.
struct MetricsRoutes {
    let store: SenseiStore
    let metrics: ServerMetrics

    func addRoutes(to router: inout Router) {
        router.add("GET", "/metrics", scope: .read) { [store, metrics] _, _ in try metrics.exposition(store: store) }
    }
}
