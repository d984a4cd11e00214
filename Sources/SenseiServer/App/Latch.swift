import Dispatch
import Synchronization

/// Opens once and stays open; `wait` blocks until then.
final class Latch: Sendable {
    private let isOpen = Mutex(false)
    private let closed = DispatchGroup()

    init() {
        closed.enter()
    }

    /// Lets every waiter through, now and later; a second call does nothing.
    func open() {
        let first = isOpen.withLock { isOpen in
            defer { isOpen = true }
            return !isOpen
        }
        if first { closed.leave() }
    }

    func wait() {
        closed.wait()
    }
}
