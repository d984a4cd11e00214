import Foundation

/// Runs `work`, which blocks (a socket read, a child's exit, a sleep), on a
/// thread of its own while the calling task waits suspended. Swift's
/// cooperative pool has as many threads as the machine has cores (two in
/// CI): a test blocking one in a socket call stalls every other test's
/// awaits, and the dashboard's sync tasks those awaits wait for. This is
/// how async tests call blocking test code, one thread per call.
package func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

/// `offThePool` for work that cannot fail.
package func offThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}
