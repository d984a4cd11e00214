import Dispatch
import Logging
import ServiceLifecycle
import UnixSignals
import Synchronization

/// The application's one `ServiceGroup`, run on a thread of its own
/// (`ThreadExecutor`), with the blocking entry points the server and its
/// tests need: `launch` returns at once, `wait` blocks until the group has
/// stopped (after a signal, in `serve`), `shutdown` triggers the graceful
/// shutdown and blocks until it is over.
///
/// Its own executor, so that the services' tasks do not wait for the
/// cooperative pool. That is not the whole of it: in the tests, two
/// `shutdown`s blocking both threads of a two-thread pool never returned
/// (gdb showed nothing else running). Callers on the pool call it off the
/// pool; the server calls it from its main thread.
package final class ServiceRunner: Sendable {
    private let group: ServiceGroup
    private let executor: ThreadExecutor
    private let logger: Logger
    private let launched = Mutex(false)
    /// Entered at launch, left when the group's `run` returns.
    private let running = DispatchGroup()

    /// `services` in start order: graceful shutdown stops them in reverse.
    /// `signals` start the graceful shutdown too.
    package init(services: [any Service], signals: [UnixSignal], logger: Logger) {
        group = ServiceGroup(services: services, gracefulShutdownSignals: signals, logger: logger)
        executor = ThreadExecutor(name: "sensei-services")
        self.logger = logger
    }

    /// Runs the group; a second call does nothing.
    package func launch() {
        let first = launched.withLock { launched in
            defer { launched = true }
            return !launched
        }
        guard first else { return }
        running.enter()
        Task(executorPreference: executor) { [group, running, logger] in
            do {
                try await group.run()
            } catch {
                logger.error("the services stopped with an error: \(error)")
            }
            running.leave()
        }
    }

    /// Blocks until the group has stopped.
    package func wait() {
        running.wait()
    }

    /// Stops every service in order and waits for that; the group is run
    /// first if it never was, so the parts that were made are still stopped.
    package func shutdown() {
        launch()
        Task(executorPreference: executor) { [group] in await group.triggerGracefulShutdown() }
        running.wait()
        executor.stop()
    }
}
