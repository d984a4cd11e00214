import Foundation
import Testing

/// At most `width` live test servers at once. Swift Testing starts every
/// test together, and a test waiting on its server holds no thread, so
/// nothing else bounds them: hundreds of servers (threads, a database each)
/// on two cores would answer too slowly for the tests' hang bounds. A test
/// that starts a second server within the first's body needs no second turn;
/// one that starts servers one after another (a restart on the same
/// directory) goes before the tests that have not started yet, so it does
/// not queue behind the whole suite in the middle of what it checks.
final class TestServerGate: @unchecked Sendable {
    static let shared = TestServerGate(
        width: ProcessInfo.processInfo.environment["SENSEI_TEST_SERVERS"].flatMap(Int.init) ?? 4)
    @TaskLocal private static var holdsTurn = false

    private struct Waiter {
        let test: Test.ID?
        let continuation: CheckedContinuation<Void, Never>
    }

    private let lock = NSLock()
    private var available: Int
    private var waiting: [Waiter] = []
    /// Tests that have had a turn.
    private var started: Set<Test.ID> = []

    init(width: Int) {
        available = width
    }

    func withTurn<T>(_ body: () async throws -> T) async throws -> T {
        if Self.holdsTurn { return try await body() }
        await enter(Test.current?.id)
        defer { leave() }
        return try await Self.$holdsTurn.withValue(true) { try await body() }
    }

    private func enter(_ test: Test.ID?) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            defer { lock.unlock() }
            if available > 0 {
                available -= 1
                if let test { started.insert(test) }
                continuation.resume()
            } else {
                waiting.append(Waiter(test: test, continuation: continuation))
            }
        }
    }

    private func leave() {
        lock.lock()
        defer { lock.unlock() }
        guard !waiting.isEmpty else {
            available += 1
            return
        }
        let next = waiting.firstIndex { $0.test.map(started.contains) ?? false } ?? 0
        let waiter = waiting.remove(at: next)
        if let test = waiter.test { started.insert(test) }
        waiter.continuation.resume()
    }
}
