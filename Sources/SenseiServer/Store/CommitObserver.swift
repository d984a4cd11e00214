/// What `GroupCommit` tells of each committed transaction.
///
/// A struct, not a bare closure in the `Mutex`: reading a closure out of
/// `Mutex.withLock { $0 }` writes it back wrapped in two more reabstraction
/// thunks each time (swiftlang/swift#91348), so every commit made the next
/// one's call deeper: 38,000 instructions a commit after 2,000 of them.
struct CommitObserver: Sendable {
    let committed: @Sendable (CommitSummary) -> Void
}

/// One committed transaction: its writes (failed ones among them were
/// rolled back alone) and what the writes of readings stored, in commit order.
struct CommitSummary: Sendable {
    let writes: Int
    let stored: [StoredReadings]
}
