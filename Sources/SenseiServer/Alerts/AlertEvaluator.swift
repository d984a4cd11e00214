import Foundation
import Logging
import SenseiModels
import Synchronization

/// Keeps every rule and its state in memory, judges each committed reading
/// of a watched sensor and, on a timer, silences, `for` deadlines and
/// repeats. A change of state is stored with its notifications in one
/// transaction of the group commit (`AlertStore.saveAlertChanges`), so a
/// notification exists exactly when its transition does.
///
/// It sees readings as a commit observer of the store: whatever route or
/// protocol a reading came by, its commit is judged, without the ingest code
/// knowing of alerts. With no rule, a commit costs one atomic load; with
/// rules, only the rules of the written sensors are looked at, in memory.
///
/// A `usage_above` rule is not judged on the writer thread: a commit only
/// marks it for a look, and the timer computes the running interval's usage
/// (one store query) at most once every `usageSpacing` per rule, and not at
/// all while it is firing, until its interval ends (`AlertEvaluator+Usage`).
final class AlertEvaluator: Sendable {
    struct Entry: Sendable {
        var rule: AlertRule
        var status: AlertStatus
        /// The last commit of one of its sensor's readings (or when watching
        /// began): what a silence is measured from.
        var lastSeen: Int64
        /// A `usage_above` rule's calendar; nil for the others.
        var calendar: UsageCalendar?
        /// Readings came since its usage was last computed.
        var usageStale = true
        /// When its usage was last computed; nil: never.
        var usageCheckedAt: Int64?
    }

    struct Table {
        var entries: [Int64: Entry] = [:]
        var bySensor: [Int64: [Int64]] = [:]
        var tapped = false
    }

    let store: any AlertStore & SensorStore & ReadingStore
    let logger: Logger
    private let interval: TimeInterval
    /// The alerts' clock: the system's, or a test's.
    let clock: @Sendable () -> Timestamp
    /// The least time between two computations of one usage rule's usage, ms.
    let usageSpacing: Int64
    let table = Mutex(Table())
    /// Rules in `table`: the one thing a commit reads when there are none.
    private let watched = Atomic<Int>(0)
    private let worker = WorkerThread(name: "sensei-alerts")
    /// Whether this node may evaluate: it holds the lease (`NodeLink`).
    private let holdsLease: @Sendable () -> Bool
    /// The table holds the rules as stored when the lease was taken, and
    /// every change since: false while another node evaluates.
    private let loaded = Atomic<Bool>(false)
    /// Usage computations of `usage_above` rules done, each with its outcome
    /// decided (tests wait on it).
    let usageChecks = Atomic<Int>(0)
    /// Batches of changes submitted and not yet committed.
    private let unsaved = Atomic<Int>(0)
    /// Called once notifications are committed to the outbox.
    private let queued: @Sendable () -> Void
    /// Called with the rules whose state moved, once committed (the live stream).
    private let moved: @Sendable ([StoredAlert]) -> Void

    init(store: any AlertStore & SensorStore & ReadingStore, interval: TimeInterval, logger: Logger,
         clock: @escaping @Sendable () -> Timestamp = { .now() }, usageSpacing: TimeInterval = 5,
         holdsLease: @escaping @Sendable () -> Bool = { true },
         queued: @escaping @Sendable () -> Void, moved: @escaping @Sendable ([StoredAlert]) -> Void = { _ in }) {
        self.store = store
        self.holdsLease = holdsLease
        self.interval = interval
        self.clock = clock
        self.usageSpacing = Int64(usageSpacing * 1000)
        self.logger = logger
        self.queued = queued
        self.moved = moved
    }

    /// Observes commits and ticks every `interval`; loads the rules at once
    /// when this node holds the lease (always, on SQLite), else once it takes it.
    func start() throws {
        if holdsLease() { try load() }
        // Weakly: the store outlives the evaluator in tests that reopen it.
        let observer = CommitObserver { [weak self] commit in self?.committed(commit.stored) }
        store.observeCommits(observer)
        worker.start { [self] _ in
            tick()
            return interval
        }
    }

    /// Loads the rules as stored, judges what was committed meanwhile (the
    /// newest reading of each sensor: while the server was down, or while
    /// another node held the lease), and notices silences at once.
    private func load() throws {
        let now = clock().milliseconds
        let stored = try store.alerts()
        let latest = try Dictionary(store.sensors(labeled: []).map { ($0.id, $0.latest) }, uniquingKeysWith: { a, _ in a })
        var changes: [AlertStatusChange] = []
        table.withLock { table in
            table.entries = [:]
            for alert in stored {
                var entry = makeEntry(for: alert, latest: latest[alert.rule.sensorID] ?? nil, now: now)
                if let reading = latest[alert.rule.sensorID] ?? nil,
                   let (status, notice) = AlertJudge.judge(entry.rule, entry.status, reading: reading.value,
                                                           at: reading.timestamp.milliseconds, now: now) {
                    changes.append(AlertStatusChange(id: alert.id, from: entry.status, to: status, notice: notice))
                    entry.status = status
                }
                table.entries[alert.id] = entry
            }
            reindex(&table)
        }
        loaded.store(true, ordering: .releasing)
        save(changes, at: now)
    }

    func stop() {
        worker.stop()
    }

    /// Takes a rule's stored form after it was created or changed, or drops
    /// it when it is gone.
    func refresh(id: Int64) throws {
        let alert = try store.alert(id: id)
        let latest = try alert.flatMap { try store.sensor(.id($0.rule.sensorID))?.latest }
        let now = clock().milliseconds
        let entry = alert.map { makeEntry(for: $0, latest: latest, now: now) }
        table.withLock { table in
            if let entry {
                table.entries[id] = entry
            } else {
                table.entries[id] = nil
            }
            reindex(&table)
        }
    }

    /// A rule's state as the evaluator holds it (ahead of the database by
    /// at most a commit).
    /// nil while another node evaluates: the database's is the state then.
    func status(of id: Int64) -> AlertStatus? {
        guard loaded.load(ordering: .acquiring) else { return nil }
        return table.withLock { $0.entries[id]?.status }
    }

    /// Changes decided and not yet committed (with their notifications):
    /// zero means the outbox holds every notification decided so far.
    var savesInFlight: Int { unsaved.load(ordering: .acquiring) }

    /// Rules by state, for `/metrics`.
    func countsByState() -> [AlertState: Int] {
        table.withLock { table in
            var counts: [AlertState: Int] = [.ok: 0, .pending: 0, .firing: 0]
            for entry in table.entries.values { counts[entry.status.state, default: 0] += 1 }
            return counts
        }
    }

    private func makeEntry(for alert: StoredAlert, latest: Reading?, now: Int64) -> Entry {
        // A reading stamped ahead of the clock must not put a silence off.
        let seen = min(latest?.timestamp.milliseconds ?? .min, now)
        return Entry(rule: alert.rule, status: alert.status, lastSeen: max(seen, alert.status.since),
                     calendar: calendar(of: alert))
    }

    func reindex(_ table: inout Table) {
        var bySensor: [Int64: [Int64]] = [:]
        for (id, entry) in table.entries.sorted(by: { $0.key < $1.key }) { bySensor[entry.rule.sensorID, default: []].append(id) }
        table.bySensor = bySensor
        // Writes keep a copy of what they stored only while a rule may want it.
        let wanted = !table.entries.isEmpty
        if wanted != table.tapped {
            if wanted { store.tap.attach() } else { store.tap.detach() }
            table.tapped = wanted
        }
        watched.store(table.entries.count, ordering: .releasing)
    }

    /// On the writer thread, after each commit: judges the newest reading of
    /// every written sensor that has rules.
    private func committed(_ written: [StoredReadings]) {
        guard watched.load(ordering: .acquiring) > 0, loaded.load(ordering: .acquiring), holdsLease() else { return }
        let now = clock().milliseconds
        var changes: [AlertStatusChange] = []
        table.withLock { table in
            for stored in written {
                guard let ids = table.bySensor[stored.sensorID] else { continue }
                // The newest, and of two at one instant the later.
                var newest: Reading?
                for reading in stored.readings where newest == nil || reading.timestamp >= newest!.timestamp {
                    newest = reading
                }
                for id in ids {
                    guard var entry = table.entries[id] else { continue }
                    entry.lastSeen = now
                    // Usage is computed on the timer, off the writer thread.
                    entry.usageStale = entry.usageStale || entry.calendar != nil
                    if let newest, let (status, notice) = AlertJudge.judge(
                        entry.rule, entry.status, reading: newest.value, at: newest.timestamp.milliseconds, now: now) {
                        changes.append(AlertStatusChange(id: id, from: entry.status, to: status, notice: notice))
                        entry.status = status
                    }
                    table.entries[id] = entry
                }
            }
        }
        save(changes, at: now)
    }

    /// Silences, pending rules whose `for` has run out, repeats.
    private func tick() {
        guard holdsLease() else {
            // Another node evaluates; taking the lease back reloads what it did.
            loaded.store(false, ordering: .releasing)
            return
        }
        if !loaded.load(ordering: .acquiring) {
            do {
                try load()
            } catch {
                return logger.error("loading the alert rules failed: \(error)")
            }
        }
        let now = clock().milliseconds
        checkUsage(now: now)
        var changes: [AlertStatusChange] = []
        table.withLock { table in
            for (id, entry) in table.entries {
                guard let (status, notice) = AlertJudge.tick(entry.rule, entry.status, lastSeen: entry.lastSeen, now: now)
                else { continue }
                table.entries[id]!.status = status
                changes.append(AlertStatusChange(id: id, from: entry.status, to: status, notice: notice))
            }
        }
        save(changes, at: now)
    }

    /// Stores the changes (and their notifications) in the next group commit,
    /// without waiting: this runs on the writer thread too.
    func save(_ changes: [AlertStatusChange], at now: Int64) {
        guard !changes.isEmpty else { return }
        unsaved.add(1, ordering: .releasing)
        store.saveAlertChanges(changes, at: now, notification: AlertPayload.json) { [weak self] result in
            guard let self else { return }
            defer { unsaved.subtract(1, ordering: .releasing) }
            switch result {
            case .success(let saved):
                if !saved.gone.isEmpty {
                    table.withLock { table in
                        for id in saved.gone { table.entries[id] = nil }
                        reindex(&table)
                    }
                }
                if saved.queued > 0 { queued() }
                if !saved.moved.isEmpty { moved(saved.moved) }
            case .failure(let error):
                logger.error("storing alert states failed: \(error)")
            }
        }
    }
}
