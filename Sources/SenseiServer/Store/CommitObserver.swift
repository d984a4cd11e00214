/// What `GroupCommit` tells of each committed transaction: the outcome of
/// every write in it (failed ones were rolled back alone).
///
/// A struct, not a bare closure in the `Mutex`: reading a closure out of
/// `Mutex.withLock { $0 }` writes it back wrapped in two more reabstraction
/// thunks each time (swiftlang/swift#91348), so every commit made the next
/// one's call deeper: 38,000 instructions a commit after 2,000 of them.
struct CommitObserver: Sendable {
    let committed: @Sendable ([Result<any Sendable, any Error>]) -> Void
}
