/// `GET /metrics`: the Prometheus text exposition, for a read token.
struct MetricsRoutes {
    let store: any SensorStore & AlertStore & MaintenanceStore
    let metrics: ServerMetrics
    let alerts: AlertService
    let link: any NodeLink

    func addRoutes(to router: inout Router) {
        router.add("GET", "/metrics", scope: .read) { [store, metrics, alerts, link] _, _ in
            try alerts.updateMetrics()
            return try metrics.exposition(store: store, link: link)
        }
    }
}
