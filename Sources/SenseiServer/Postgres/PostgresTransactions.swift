/// The group commit's transactions on PostgreSQL: a group on one connection,
/// a failing write isolated by a savepoint as on SQLite. PostgreSQL aborts
/// the whole transaction on any failed statement, so the optimistic pass
/// (no savepoints) fails as a whole and the group is run again isolated.
struct PostgresTransactions: GroupTransactions {
    let connections: PostgresConnections
    /// This node's name, on the events it writes for the others.
    let node: String
    /// Where receive-time readings may start, per sensor (the store's).
    let hints: ReceiveTimeHints
    /// The sensors this node wrote to lately (the store's).
    let targets: WriteTargets

    func writerLoop(_ body: () -> Void) {
        body()
    }

    func transaction(_ body: (PostgresSession) throws -> Void) throws {
        try connections.transaction(body)
    }

    func savepoint(in session: PostgresSession, _ body: () throws -> Void) throws {
        try session.script("SAVEPOINT write")
        do {
            try body()
            try session.script("RELEASE SAVEPOINT write")
        } catch {
            // A lost connection fails here too, and then the COMMIT.
            if (try? session.script("ROLLBACK TO SAVEPOINT write")) != nil {
                try? session.script("RELEASE SAVEPOINT write")
            }
            throw error
        }
    }

    /// The group's common writes of readings in one statement (`PostgresWritesTogether`).
    func performTogether(_ parts: [(any Sendable)?], in session: PostgresSession) throws -> [(any Sendable)?] {
        try PostgresWritesTogether(hints: hints, targets: targets, session: session).perform(parts)
    }

    /// The readings this transaction stored, for the other nodes' streams
    /// and alert evaluator, committed with them (sent with the COMMIT).
    func beforeCommit(_ stored: [StoredReadings], in session: PostgresSession) throws {
        guard stored.contains(where: { !$0.readings.isEmpty }) else { return }
        session.sendWithCommit(PostgresNodeLink.appending(.readings(stored), node: node))
    }
}
