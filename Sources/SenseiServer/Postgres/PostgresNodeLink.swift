import Dispatch
import Logging
import SenseiModels
import SenseiPostgres
import Synchronization

/// This node among the others on one PostgreSQL database: one connection of
/// its own, outside the pool, that holds the lease and listens.
///
/// - The lease is a session advisory lock (`pg_try_advisory_lock`): held while
///   this connection lives, so a node that dies, or loses its connection,
///   leaves it to another within a round (a quarter of a second) of
///   PostgreSQL noticing. A node tries for it once a second.
/// - The others' events (`node_events`, written in the transactions they tell
///   of) are read in (xid, id) order, only from transactions older than every
///   one still running in this database (`settled`): a transaction that began
///   first but commits last is read when it commits, never skipped. `NOTIFY
///   sensei_events` wakes the link at once: between rounds it waits on its
///   connection for one (`nextNotification`), a quarter of a second at most;
///   without it (missed while reconnecting) the next round reads what came,
///   so nothing is lost.
final class PostgresNodeLink: NodeLink {
    /// The advisory lock's key: the schema's transaction holds `lockKey`,
    /// sensor creation `lockKey + 1`.
    static let leaseKey: Int64 = PostgresSchema.lockKey + 2
    /// How long events stay for a node that was away (reconnecting): long
    /// past the two seconds a stream may lag, short enough that a hub
    /// writing 500,000 readings a second keeps about 1 GB of them.
    static let eventLifetime: Int64 = 2 * 60 * 1000

    let node: String
    var backend: String { "postgresql" }
    private let connections: PostgresConnections
    private let logger: Logger
    private let worker = WorkerThread(name: "sensei-node-link")
    private let leaseHeld = Atomic<Bool>(false)
    /// Set by `stop`, before it interrupts the wait for a notification.
    private let stopping = Atomic<Bool>(false)
    /// Relays leave on this queue, in order, off the caller's thread.
    private let relays = DispatchQueue(label: "sensei-node-relays")
    /// Touched only on the worker's thread.
    private let link = Mutex(LinkState())

    private struct LinkState {
        var connection: PGConnection?
        /// The last event read: (xid as text, id).
        var cursor: (xid: String, id: Int64)?
        var lastLeaseTry = ContinuousClock.Instant.now - .seconds(10)
        var lastCleanup = ContinuousClock.Instant.now
        var reportedDown = false

        /// Whether `interval` has passed since `last`; if so, `last` is now.
        static func due(_ last: inout ContinuousClock.Instant, every interval: Duration) -> Bool {
            let now = ContinuousClock.now
            guard now - last >= interval else { return false }
            last = now
            return true
        }
    }

    /// Where another node's readings go: the store's commit observers.
    private let committedElsewhere: @Sendable ([StoredReadings]) -> Void

    init(connections: PostgresConnections, node: String, logger: Logger,
         committedElsewhere: @escaping @Sendable ([StoredReadings]) -> Void) {
        self.connections = connections
        self.node = node
        self.logger = logger
        self.committedElsewhere = committedElsewhere
    }

    var holdsLease: Bool { leaseHeld.load(ordering: .acquiring) }

    /// Waits for the first round (at most ten seconds): a node alone then
    /// holds the lease before its alert evaluator starts, and judges the
    /// first commits itself rather than from the rules it loads on a tick.
    func start(_ delivery: NodeDelivery) {
        let firstRound = DispatchSemaphore(value: 0)
        let rounds = Atomic<Int>(0)
        worker.start { [self] _ in
            defer { if rounds.add(1, ordering: .relaxed).oldValue == 0 { firstRound.signal() } }
            return round(delivery)
        }
        _ = firstRound.wait(timeout: .now() + 10)
    }

    func stop() {
        // A round waiting for a notification wakes (`interrupt` is the one
        // call safe from another thread); one about to wait sees `stopping`,
        // or finds the interrupt pending and returns at once.
        stopping.store(true, ordering: .releasing)
        link.withLock { $0.connection }?.interrupt()
        worker.stop()
        relays.sync {}
        link.withLock { state in
            // Closing the session releases the lease at once.
            state.connection?.close()
            state.connection = nil
        }
        leaseHeld.store(false, ordering: .releasing)
    }

    /// The link's connection says what it is (`application_name`), so a node
    /// sees the others' in `pg_stat_activity`.
    static let applicationName = "sensei-node-link"

    func othersAlive() -> Bool {
        let own = link.withLock { $0.connection }.map { _ in true } ?? false
        let query: PGQuery = """
            SELECT count(*) FROM pg_stat_activity
            WHERE application_name = \(Self.applicationName) AND datname = current_database()
            """
        let links = (try? connections.withSession { try $0.row(query)?.decode(Int64.self) }) ?? nil
        return (links ?? 0) > (own ? 1 : 0)
    }

    func relay(_ event: AlertEvent.Relayed) {
        relays.async { [self] in
            do {
                try connections.withSession { try Self.append(.alert(event), node: node, in: $0) }
            } catch {
                logger.warning("telling the other nodes of an alert event failed: \(error)")
            }
        }
    }

    /// Writes `event` for the others, in the session's transaction if one is
    /// open (the group commit's: the event commits with what it tells of).
    static func append(_ event: NodeEvent, node: String, in session: PostgresSession) throws {
        try session.execute(appending(event, node: node))
    }

    /// The statement that writes `event` for the others and notifies them.
    static func appending(_ event: NodeEvent, node: String) -> PGQuery {
        """
        WITH e AS (INSERT INTO node_events (node, kind, body, at)
                   VALUES (\(node), \(event.kind), \(event.body), \(Timestamp.now().milliseconds)))
        SELECT pg_notify('sensei_events', \(node))
        """
    }

    /// One round: connect if need be, try for the lease, read what came,
    /// then wait on the connection for another node's notification (a
    /// quarter of a second at most) before the next.
    private func round(_ delivery: NodeDelivery) -> Double {
        do {
            let connection = try connected()
            try tryForLease(on: connection, delivery)
            try readEvents(on: connection, delivery)
            try cleanUp(on: connection)
            link.withLock { $0.reportedDown = false }
            try awaitNotification(on: connection, for: .milliseconds(250))
            return 0
        } catch {
            let firstTime = link.withLock { state in
                state.connection?.close()
                state.connection = nil
                defer { state.reportedDown = true }
                return !state.reportedDown
            }
            if leaseHeld.exchange(false, ordering: .acquiringAndReleasing) {
                logger.warning("this node lost the lease (alerts, compaction, retention): \(error)")
                delivery.lease(false)
            } else if firstTime {
                logger.warning("following the other nodes failed; retrying: \(error)")
            }
            return 1
        }
    }

    /// Waits until another node notifies, `timeout` passes, or `stop`
    /// interrupts. Each commit of this node's notifies too (its name as the
    /// payload): nothing for this node to read, so the wait goes on.
    private func awaitNotification(on connection: PGConnection, for timeout: Duration) throws {
        let deadline = ContinuousClock.now + timeout
        while !stopping.load(ordering: .acquiring) {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return }
            let notification: PGNotification?
            do {
                notification = try connection.nextNotification(timeout: left)
            } catch {
                throw PostgresStoreError.unavailable(url: "PostgreSQL", reason: PostgresSession.describe(error))
            }
            // Timed out, or interrupted.
            guard let notification else { return }
            if notification.payload != node {
                // The others queued meanwhile say nothing more: the round reads everything.
                while try connection.nextNotification(timeout: .zero) != nil {}
                return
            }
        }
    }

    private func connected() throws -> PGConnection {
        if let connection = link.withLock({ $0.connection }), !connection.isBroken { return connection }
        if let stale = link.withLock({ $0.connection }) { stale.close() }
        let connection = try connections.connect()
        link.withLock { $0.connection = connection }
        let session = PostgresSession(connection: connection, logger: logger)
        try session.script("LISTEN sensei_events")
        try session.execute("SELECT set_config('application_name', \(Self.applicationName), false)")
        // `stop` interrupted a connection closed since: this one's wait must end too.
        if stopping.load(ordering: .acquiring) { connection.interrupt() }
        // Lost with the old connection, if any.
        if leaseHeld.load(ordering: .acquiring) { throw PostgresStoreError.unavailable(url: "PostgreSQL", reason: "the lease's connection closed") }
        return connection
    }

    private func tryForLease(on connection: PGConnection, _ delivery: NodeDelivery) throws {
        guard !holdsLease else { return }
        guard link.withLock({ LinkState.due(&$0.lastLeaseTry, every: .seconds(1)) }) else { return }
        let session = PostgresSession(connection: connection, logger: logger)
        let taken = try session.row("SELECT pg_try_advisory_lock(\(Self.leaseKey))")?.decode(Bool.self) ?? false
        guard taken else { return }
        leaseHeld.store(true, ordering: .releasing)
        logger.notice("this node (\(node)) holds the lease: it evaluates and delivers alerts, compacts and sweeps")
        delivery.lease(true)
    }

    /// The transaction ids below which every transaction of this database
    /// is over, as of the statement's snapshot: the oldest still running here,
    /// else the snapshot's `xmax`. Not `pg_snapshot_xmin`, which is the whole
    /// server's: a PostgreSQL shared with other applications would hold every
    /// node's events back for as long as any of their write transactions
    /// runs (a backup job, a migration, a session left in a transaction).
    ///
    /// A running id is another database's when `pg_locks` (read after the
    /// snapshot) shows a backend of another database holding it: a backend
    /// stays in its database, so that cannot change. An id whose backend has
    /// ended by then, or a prepared transaction's, counts as this database's
    /// for the round, which only waits. `pg_locks` holds 32-bit ids; those of
    /// running transactions are unique in their low 32 bits. Readable without
    /// any privilege: `pg_locks`, and `datname` in `pg_stat_activity`.
    static let settled = """
        (SELECT coalesce(min(running), pg_snapshot_xmax(pg_current_snapshot()))
         FROM pg_snapshot_xip(pg_current_snapshot()) AS running
         WHERE running::text::numeric % 4294967296 NOT IN (
             SELECT l.transactionid::text::numeric FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
             WHERE l.locktype = 'transactionid' AND l.mode = 'ExclusiveLock' AND l.granted
               AND l.transactionid IS NOT NULL AND a.datname IS DISTINCT FROM current_database()))
        """

    private func readEvents(on connection: PGConnection, _ delivery: NodeDelivery) throws {
        let session = PostgresSession(connection: connection, logger: logger)
        var cursor = try link.withLock { $0.cursor } ?? startingCursor(session)
        while true {
            let rows = try session.rows("""
                SELECT xid::text, id, node, kind, body FROM node_events
                WHERE (xid, id) > (\(cursor.xid)::text::xid8, \(cursor.id))
                  AND xid < \(unescaped: Self.settled)
                ORDER BY xid, id LIMIT 200
                """)
            for row in rows {
                let (xid, id, origin, kind, body) = try row.decode((String, Int64, String, Int16, [UInt8]).self)
                cursor = (xid, id)
                guard origin != node, let event = NodeEvent(kind: kind, body: body) else { continue }
                switch event {
                case .readings(let written): committedElsewhere(written)
                case .alert(let event): delivery.alert(event)
                }
            }
            link.withLock { $0.cursor = cursor }
            if rows.count < 200 { return }
        }
    }

    /// Where a starting node begins: after every transaction already over.
    private func startingCursor(_ session: PostgresSession) throws -> (xid: String, id: Int64) {
        let settled = try session.row("SELECT \(unescaped: Self.settled)::text")?.decode(String.self) ?? "0"
        return (settled, -1)
    }

    /// The lease holder deletes events no node needs any more, every ten seconds.
    private func cleanUp(on connection: PGConnection) throws {
        guard holdsLease else { return }
        guard link.withLock({ LinkState.due(&$0.lastCleanup, every: .seconds(10)) }) else { return }
        let session = PostgresSession(connection: connection, logger: logger)
        try session.execute("DELETE FROM node_events WHERE at < \(Timestamp.now().milliseconds - Self.eventLifetime)")
    }
}
