import Foundation
import SenseiServer

/// Runs `work`, which blocks (a socket read, a child's exit, thousands of
/// store queries), on a thread of its own while the calling task waits
/// suspended. Swift's cooperative pool has as many threads as the machine
/// has cores (two in CI): a test blocking one stalls every other test's
/// awaits, and the dashboard's sync tasks those awaits wait for (a CI run
/// had every test stand still for 28 s while two differential tests
/// queried their stores on the pool).
///
/// The work stays in the calling task, preferring a `ThreadExecutor` made
/// for the call, so task-locals hold: an `#expect` in it is recorded against
/// the test that made it (on a bare `Thread` it was «unknown», and the test
/// itself passed). Async work runs there too, between its awaits; child
/// tasks it makes share the one thread, so they must not wait on each other.
package func offThePool<T, Failure: Error>(_ work: () async throws(Failure) -> T) async throws(Failure) -> T {
    let executor = ThreadExecutor(name: "sensei-test-blocking")
    defer { executor.stop() }
    return try await withTaskExecutorPreference(executor, operation: work)
}
