/// `GET /health`: open to all, for load balancers and uptime checks.
/// With `--mqtt`, also the broker connection's state (`"mqtt":"connected"`):
/// the server is up either way, so `status` stays `ok`. With it, the client
/// id (`mqttClientID`) and whether this node's subscriptions are shared with
/// the other nodes on its database (`mqttShared`), to tell nodes apart.
struct HealthRoutes {
    var mqtt: MQTTSubscriber? = nil

    func addRoutes(to router: inout Router) {
        router.add("GET", "/health", scope: nil) { [mqtt] _, _ in Self.health(mqtt: mqtt) }
    }

    private static func health(mqtt: MQTTSubscriber?) -> Response {
        .json { writer in
            writer.beginObject()
            writer.key("status")
            writer.string("ok")
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
