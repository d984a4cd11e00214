/// The MQTT phase's rows: one publisher (`mosquitto_pub -l`, QoS 1) through a
/// real Mosquitto on loopback, received once by a bare `mosquitto_sub` (the
/// peer) and once stored by sensei-server's subscriber; both timed from the
/// first message published to the last one received (or durably stored).
extension BenchTable {
    static let mqttShareTarget = 0.50

    var mqttRows: [Row] {
        guard let messages = results.number("mqtt.messages") else { return [] }
        let peer = results.number("mqtt.peer_seconds").map { messages / $0 }
        let server = results.number("mqtt.server_seconds").map { messages / $0 }
        let share = peer.flatMap { peer in server.map { $0 / peer } }
        return [
            Row(metric: "MQTT peer: bare mosquitto_sub, QoS 1", value: mqttRate(peer)),
            Row(metric: "MQTT stored by sensei-server (durable)", value: mqttRate(server),
                target: "≥ 50% of mosquitto_sub", share: share.map { "\(Int(($0 * 100).rounded()))% of peer" } ?? "",
                met: share.map { $0 >= Self.mqttShareTarget }),
        ]
    }

    var mqttChecks: [String] {
        guard let messages = results.integer("mqtt.messages"), let stored = results.integer("mqtt.stored") else { return [] }
        let dropped = results.integer("mqtt.dropped") ?? 0
        var line = "MQTT: \(Format.grouped(messages)) published, \(Format.grouped(stored)) stored, \(dropped) dropped"
        line += stored == messages && dropped == 0 ? " (ok)" : " (LOST MESSAGES)"
        if let commits = results.integer("mqtt.commits"), commits > 0 {
            line += "; \(Format.grouped(commits)) group commits, \(Format.grouped(stored / commits)) messages a commit"
        }
        return [line]
    }

    private func mqttRate(_ value: Double?) -> String {
        value.map { "\(Format.grouped(Int($0.rounded()))) msg/s" } ?? "-"
    }
}
