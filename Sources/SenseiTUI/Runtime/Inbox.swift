import Synchronization

/// Messages from background work (sync, cache reads, signals) waiting for the
/// main loop, which alone owns the model.
final class Inbox: Sendable {
    private let queue = Mutex<[Msg]>([])

    func post(_ message: Msg) {
        queue.withLock { $0.append(message) }
    }

    func drain() -> [Msg] {
        queue.withLock { messages in
            defer { messages.removeAll() }
            return messages
        }
    }
}
