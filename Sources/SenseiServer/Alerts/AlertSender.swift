import Dispatch
import Foundation
import Logging
import SenseiModels
import Synchronization

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
    private let running = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(store: any AlertStore, configuration: Configuration, metrics: AlertMetrics, logger: Logger) {
        self.store = store
        self.configuration = configuration
        self.metrics = metrics
        self.logger = logger
        delivery = AlertDelivery(timeout: configuration.timeout, loopbackOnly: configuration.loopbackOnly)
    }

    func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let thread = Thread { [self] in run() }
        thread.name = "sensei-alert-sender"
        thread.start()
    }

    /// Ends after the delivery in flight, if any (at most its timeout).
    func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        wake.signal()
        finished.wait()
        delivery.invalidate()
    }

    /// New entries are in the outbox.
    func notify() {
        wake.signal()
    }

    private func run() {
        while running.load(ordering: .acquiring) {
            let next = deliverDue()
            let idle: TimeInterval = 60
            let wait = next.map { max(0.01, min(idle, Double($0 - Timestamp.now().milliseconds) / 1000)) } ?? idle
            _ = wake.wait(timeout: .now() + wait)
        }
        finished.signal()
    }

    /// Sends every entry due now; returns when the next one falls due.
    private func deliverDue() -> Int64? {
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
            guard running.load(ordering: .acquiring) else { return nil }
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
