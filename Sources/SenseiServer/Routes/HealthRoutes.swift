/// `GET /health`: open to all, for load balancers and uptime checks:
/// `{"status":"ok"}` (the v1 contract). On PostgreSQL, also which database,
/// this node's name, and whether it holds the lease (alerts, compaction,
/// retention: one node of several at a time). With `--mqtt`, also the broker
/// connection's state (`"mqtt":"connected"`; the server is up either way, so
/// `status` stays `ok`), the client id (`mqttClientID`) and whether this
/// node's subscriptions are shared with the other nodes (`mqttShared`).
struct HealthRoutes {
    var mqtt: MQTTSubscriber? = nil
    let link: any NodeLink

    func addRoutes(to router: inout Router) {
        router.add("GET", "/health", scope: nil) { [mqtt, link] _, _ in Self.health(mqtt: mqtt, link: link) }
    }

    private static func health(mqtt: MQTTSubscriber?, link: any NodeLink) -> Response {
        .json { writer in
            writer.beginObject()
            writer.key("status")
            writer.string("ok")
            if link.backend != "sqlite" {
                writer.key("database")
                writer.string(link.backend)
                writer.key("node")
                writer.string(link.node)
                writer.key("lease")
                writer.bool(link.holdsLease)
            }
            if let mqtt {
                writer.key("mqtt")
                writer.string(mqtt.state.name)
                writer.key("mqttClientID")
                writer.string(mqtt.clientID)
                writer.key("mqttShared")
                writer.bool(mqtt.isShared)
            }
            writer.endObject()
        }
    }
}
