import Prometheus

/// The alerts' part of `/metrics`: rules by state and the outbox, read when
/// scraped; notifications sent and given up on, counted by the sender.
final class AlertMetrics: Sendable {
    let sent: Counter
    let failed: Counter
    private let rules: [AlertState: Gauge]
    private let outboxPending: Gauge

    init(registry: PrometheusCollectorRegistry) {
        sent = registry.makeCounter(
            name: "sensei_alert_notifications_sent_total", help: "Alert notifications a receiver took (2xx).")
        failed = registry.makeCounter(
            name: "sensei_alert_notifications_failed_total",
            help: "Alert notifications given up on once their retries were spent.")
        var rules: [AlertState: Gauge] = [:]
        for state in [AlertState.ok, .pending, .firing] {
            rules[state] = registry.makeGauge(
                name: "sensei_alert_rules", labels: [("state", state.rawValue)], help: "Alert rules by state.")
        }
        self.rules = rules
        outboxPending = registry.makeGauge(
            name: "sensei_alert_outbox_pending", help: "Alert notifications in the outbox waiting to be delivered.")
    }

    /// Reads the levels before an exposition.
    func update(evaluator: AlertEvaluator, store: any AlertStore) throws {
        for (state, count) in evaluator.countsByState() { rules[state]?.set(to: Double(count)) }
        outboxPending.set(to: Double(try store.outboxCounts().pending))
    }
}
