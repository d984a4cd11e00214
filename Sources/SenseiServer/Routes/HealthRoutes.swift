/// `GET /health`: open to all, for load balancers and uptime checks.
struct HealthRoutes {
    func addRoutes(to router: inout Router) {
        router.add("GET", "/health", scope: nil) { _, _ in health() }
    }

    private func health() -> Response {
        .json { writer in
            writer.beginObject()
            writer.key("status")
            writer.string("ok")
            writer.endObject()
        }
    }
}
