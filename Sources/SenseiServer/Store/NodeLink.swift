/// How this node works beside the other nodes on one database (docs/postgresql.md,
/// "Several nodes, one hub"): what they did that it must know, and the lease
/// that makes one node at a time evaluate and deliver alerts, compact and sweep.
/// SQLite has one node (`SoleNode`); PostgreSQL any number (`PostgresNodeLink`).
protocol NodeLink: Sendable {
    /// "sqlite" or "postgresql", for `/health` and `/metrics`.
    var backend: String { get }
    /// This node's name (`--node-id`).
    var node: String { get }
    /// Whether this node holds the lease now.
    var holdsLease: Bool { get }
    /// Starts following the others; `delivery` is called on a thread of the link's own.
    func start(_ delivery: NodeDelivery)
    /// Whether another node is up on the database now (a node stopping
    /// leaves its MQTT share to the others only then).
    func othersAlive() -> Bool
    /// Tells the others of an alert event published here.
    func relay(_ event: AlertEvent.Relayed)
    func stop()
}

/// Where the link hands what other nodes did, and its lease's changes.
/// (Readings other nodes committed go to the store's commit observers: the
/// live stream and the alert evaluator see them as commits.)
struct NodeDelivery: Sendable {
    var alert: @Sendable (AlertEvent.Relayed) -> Void
    /// The lease was taken (true) or lost (false).
    var lease: @Sendable (Bool) -> Void
}

/// The one node of a SQLite data directory: it always holds the lease, and
/// there is no one to tell anything.
struct SoleNode: NodeLink {
    let node: String
    var backend: String { "sqlite" }
    var holdsLease: Bool { true }
    func othersAlive() -> Bool { false }
    func start(_ delivery: NodeDelivery) {}
    func relay(_ event: AlertEvent.Relayed) {}
    func stop() {}
}
