import Prometheus
import Synchronization

/// What the MQTT subscriber counts, in the server's registry (`GET /metrics`).
final class MQTTMetrics: Sendable {
    private let connected: Gauge
    private let received: Counter
    private let stored: Counter
    private let dropped: [MQTTDropReason: Counter]
    private let connections: Counter

    init(registry: PrometheusCollectorRegistry) {
        connected = registry.makeGauge(name: "sensei_mqtt_connected", help: "1 while connected to the MQTT broker.")
        connections = registry.makeCounter(
            name: "sensei_mqtt_connects_total", help: "Connections to the MQTT broker made (the first and each reconnect).")
        received = registry.makeCounter(name: "sensei_mqtt_messages_received_total", help: "MQTT messages received.")
        stored = registry.makeCounter(
            name: "sensei_mqtt_readings_stored_total", help: "Readings from MQTT messages durably stored.")
        var dropped: [MQTTDropReason: Counter] = [:]
        for reason in MQTTDropReason.allCases {
            dropped[reason] = registry.makeCounter(
                name: "sensei_mqtt_dropped_total", labels: [("reason", reason.rawValue)],
                help: "MQTT messages (or, for sensor_limit, value_type and store_failed, readings) that stored nothing, by reason.")
        }
        self.dropped = dropped
    }

    func connectionChanged(_ isConnected: Bool) {
        connected.set(to: isConnected ? 1 : 0)
        if isConnected { connections.increment() }
    }

    func messageReceived() { received.increment() }
    func readingsStored(_ count: Int) { stored.increment(by: Int64(count)) }
    func dropped(_ reason: MQTTDropReason, count: Int = 1) { dropped[reason]?.increment(by: Int64(count)) }
}
