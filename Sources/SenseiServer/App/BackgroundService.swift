import Foundation
import ServiceLifecycle

/// A part of the server that works on threads of its own (HTTP workers, the
/// MQTT network loop, a `WorkerThread`, the store's writer), as a `Service`
/// of the application's `ServiceGroup`.
///
/// `SenseiApplication.start` starts the parts one by one, in the group's
/// order, before the group runs: a group starts its services all at once,
/// and the port must be known, and a failure thrown, before `start` returns.
/// The group then stops them in the reverse order on graceful shutdown.
package struct BackgroundService: Service, CustomStringConvertible {
    package let description: String
    private let starting: @Sendable () throws -> Void
    private let stopping: @Sendable () -> Void

    /// `stop` finishes the work under way and ends the part's threads; it
    /// blocks until then, and does nothing when called again or before `start`.
    package init(_ name: String, start: @escaping @Sendable () throws -> Void = {}, stop: @escaping @Sendable () -> Void) {
        description = name
        starting = start
        stopping = stop
    }

    package func start() throws {
        try starting()
    }

    /// The stop alone, outside a group: a start that failed half way.
    package func stop() {
        stopping()
    }

    /// Waits for graceful shutdown (or cancellation), then stops. `stop`
    /// blocks, so it runs on a thread of its own, not the group's executor.
    package func run() async {
        try? await gracefulShutdown()
        await waitOnThread(named: "sensei-stop-\(description)", stopping)
    }
}

/// Runs blocking `work` on a new thread and waits for it without holding the
/// caller's executor.
func waitOnThread(named name: String, _ work: @escaping @Sendable () -> Void) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let thread = Thread {
            work()
            continuation.resume()
        }
        thread.name = name
        thread.start()
    }
}
