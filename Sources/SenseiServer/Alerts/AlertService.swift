import Foundation
import Logging
import Prometheus
import SenseiModels

/// Alerts as one part of the server: the evaluator (rules and their state)
/// and the sender (the outbox), started after the store and stopped before it
/// (`SenseiApplication.services`).
public final class AlertService: Sendable {
    public struct Configuration: Sendable {
        /// Seconds between checks of silences, `for` deadlines and repeats.
        public var tickInterval: TimeInterval = 1
        /// The least time between two computations of one `usage_above`
        /// rule's usage while its sensor is written.
        public var usageCheckInterval: TimeInterval = 5
        /// The alerts' clock: what "now" is for rules, their intervals and
        /// their transitions. A test sets one it moves on itself, to reach
        /// the end of an hour without waiting for it.
        public var clock: @Sendable () -> Timestamp = { .now() }
        /// Each delivery's timeout.
        public var deliveryTimeout: TimeInterval = 10
        /// The first retry's delay, doubling up to `maximumBackoff`.
        public var retryBackoff: TimeInterval = 5
        public var maximumBackoff: TimeInterval = 600
        public var maxAttempts = 150
        /// Deliver only to receivers on loopback; any other fails as an
        /// attempt, without a connection (for checks that create rules with
        /// arbitrary URLs, which must not send traffic off the machine).
        public var loopbackOnly = false

        public init() {}
    }

    let evaluator: AlertEvaluator
    let sender: AlertSender
    let metrics: AlertMetrics
    private let store: any AlertStore & SensorStore & ReadingStore

    /// `moved`: the rules whose state moved, once committed (the live stream).
    /// `holdsLease`: whether this node evaluates and delivers now (one node
    /// of several on one database does; the only node always does).
    init(store: any AlertStore & SensorStore & ReadingStore, configuration: Configuration,
         registry: PrometheusCollectorRegistry, logger: Logger,
         holdsLease: @escaping @Sendable () -> Bool = { true },
         moved: @escaping @Sendable ([StoredAlert]) -> Void = { _ in }) {
        self.store = store
        metrics = AlertMetrics(registry: registry)
        var senderConfiguration = AlertSender.Configuration()
        senderConfiguration.timeout = configuration.deliveryTimeout
        senderConfiguration.backoff = configuration.retryBackoff
        senderConfiguration.maximumBackoff = configuration.maximumBackoff
        senderConfiguration.maxAttempts = configuration.maxAttempts
        senderConfiguration.loopbackOnly = configuration.loopbackOnly
        let sender = AlertSender(store: store, configuration: senderConfiguration, metrics: metrics, logger: logger,
                                 holdsLease: holdsLease)
        self.sender = sender
        evaluator = AlertEvaluator(store: store, interval: configuration.tickInterval, logger: logger,
                                   clock: configuration.clock, usageSpacing: configuration.usageCheckInterval,
                                   holdsLease: holdsLease, queued: { sender.notify() }, moved: moved)
    }

    /// What time it is for the alerts (`Configuration.clock`).
    func now() -> Timestamp { evaluator.clock() }

    func start() throws {
        sender.start()
        try evaluator.start()
    }

    func stop() {
        evaluator.stop()
        sender.stop()
    }

    /// This node took the lease: deliver what the outbox holds now, and
    /// evaluate from the next tick (`AlertEvaluator` reloads the rules).
    func leaseTaken() {
        sender.notify()
    }

    /// Reads the alert levels into the registry before `/metrics` is written.
    func updateMetrics() throws {
        try metrics.update(evaluator: evaluator, store: store)
    }
}
