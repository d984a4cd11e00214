import Foundation
import Logging
import SenseiModels

/// Delivers the outbox: each entry until its receiver answers 2xx, with
/// exponential backoff between attempts, given up after `maxAttempts`.
///
/// Entries leave the outbox only once delivered, so a restart or a crash
/// sends what was not yet taken (at most the one in flight twice, when the
/// crash falls between the receiver's answer and the deletion). Entries to
/// one URL go out in order: a later one waits while an earlier one is in
/// backoff, so "resolved" never overtakes its "firing". It runs on a thread
/// of its own, so a slow or dead receiver delays only other notifications,
/// never ingestion.
final class AlertSender: Sendable {
    struct Configuration: Sendable {
        /// Each delivery's timeout.
        var timeout: TimeInterval = 10
        /// The first retry's delay; each next one doubles, up to `maximumBackoff`.
        var backoff: TimeInterval = 5
        var maximumBackoff: TimeInterval = 600
        /// Attempts before an entry is given up on (about a day with the defaults).
        var maxAttempts = 150
        /// See `AlertService.Configuration.loopbackOnly`.
        var loopbackOnly = false

        init() {}
    }

    private let store: any AlertStore
    private let configuration: Configuration
    private let logger: Logger
    private let delivery: AlertDelivery
    private let metrics: AlertMetrics
    private let worker = WorkerThread(name: "sensei-alert-sender")

    /// Whether this node may deliver: it holds the lease (`NodeLink`), so
    /// no two nodes send one notification at once.
    private let holdsLease: @Sendable () -> Bool

    init(store: any AlertStore, configuration: Configuration, metrics: AlertMetrics, logger: Logger,
         holdsLease: @escaping @Sendable () -> Bool = { true }) {
        self.store = store
        self.holdsLease = holdsLease
        self.configuration = configuration
        self.metrics = metrics
        self.logger = logger
        delivery = AlertDelivery(timeout: configuration.timeout, loopbackOnly: configuration.loopbackOnly)
    }

    func start() {
        worker.start { [self] round in
            // Idle, it still looks once a minute (an entry due later than the outbox said).
            let idle: TimeInterval = 60
            let next = deliverDue(round)
            return next.map { max(0.01, min(idle, Double($0 - Timestamp.now().milliseconds) / 1000)) } ?? idle
        }
    }

    /// Ends after the delivery in flight, if any (at most its timeout).
    func stop() {
        worker.stop()
        delivery.invalidate()
    }

    /// New entries are in the outbox.
    func notify() {
        worker.wake()
    }

    /// Sends every entry due now; returns when the next one falls due.
    private func deliverDue(_ round: WorkerThread.Round) -> Int64? {
        // Another node delivers; look again in a second (and at once when
        // the lease is taken: `notify`).
        guard holdsLease() else { return Timestamp.now().milliseconds + 1000 }
        let entries: [OutboxEntry]
        do {
            entries = try store.pendingNotifications()
        } catch {
            logger.error("reading the alert outbox failed: \(error)")
            return Timestamp.now().milliseconds + 1000
        }
        var waiting: Set<String> = []
        var next: Int64?
        for entry in entries where !waiting.contains(entry.url) {
            guard !round.isStopping else { return nil }
            if entry.nextAttemptAt > Timestamp.now().milliseconds {
                waiting.insert(entry.url)
                next = min(next ?? .max, entry.nextAttemptAt)
                continue
            }
            if let retryAt = attempt(entry) {
                waiting.insert(entry.url)
                next = min(next ?? .max, retryAt)
            }
        }
        return next
    }

    /// One attempt; when it failed and will be retried, when.
    private func attempt(_ entry: OutboxEntry) -> Int64? {
        let shown = NotifyTarget(entry.url)?.redacted ?? "an invalid URL"
        let problem = delivery.send(entry)
        let now = Timestamp.now().milliseconds
        do {
            guard let problem else {
                try store.notificationDelivered(id: entry.id)
                metrics.sent.increment()
                logger.debug("alert notification \(entry.id) delivered to \(shown)")
                return nil
            }
            let attempts = entry.attempts + 1
            guard attempts < configuration.maxAttempts else {
                try store.notificationAttemptFailed(id: entry.id, error: problem, retryAt: nil, at: now)
                metrics.failed.increment()
                logger.warning("alert notification \(entry.id) to \(shown) given up after \(attempts) attempts: \(problem)")
                return nil
            }
            let delay = min(configuration.maximumBackoff, configuration.backoff * pow(2, Double(min(attempts - 1, 30))))
            let retryAt = now + Int64(delay * 1000)
            try store.notificationAttemptFailed(id: entry.id, error: problem, retryAt: retryAt, at: now)
            logger.info("alert notification \(entry.id) to \(shown) failed (\(problem)); retrying in \(String(format: "%.1f", delay)) s")
            return retryAt
        } catch {
            logger.error("updating the alert outbox failed: \(error)")
            return now + 1000
        }
    }
}
