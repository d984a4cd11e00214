/// `GET /health`: open to all, for load balancers and uptime checks.
/// With `--mqtt`, also the broker connection's state (`"mqtt":"connected"`):
/// the server is up either way, so `status` stays `ok`.
struct HealthRoutes {
    var mqtt: MQTTSubscriber? = nil

    func addRoutes(to router: inout Router) {
        router.add("GET", "/health", scope: nil) { [mqtt] _, _ in Self.health(mqtt: mqtt?.state) }
    }

    private static func health(mqtt: MQTTConnectionState?) -> Response {
        .json { writer in
            writer.beginObject()
            writer.key("status")
            writer.string("ok")
            if let mqtt {
                writer.key("mqtt")
                writer.string(mqtt.name)
            }
            writer.endObject()
        }
    }
}
