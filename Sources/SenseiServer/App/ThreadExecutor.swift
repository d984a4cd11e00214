import Foundation

/// A task executor with one thread of its own, for async code that must
/// progress while the cooperative pool is blocked: the pool has as many
/// threads as the machine has cores (two on the reference machine). The
/// application's `ServiceGroup` runs on one (`ServiceRunner`).
package final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    /// Guards `jobs` and `stopped`, and wakes the thread.
    private let ready = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false

    package init(name: String) {
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        ready.lock()
        jobs.append(job)
        ready.signal()
        ready.unlock()
    }

    /// Lets the thread end once it has run the jobs already queued.
    package func stop() {
        ready.lock()
        stopped = true
        ready.signal()
        ready.unlock()
    }

    private func run() {
        while true {
            ready.lock()
            while jobs.isEmpty && !stopped { ready.wait() }
            guard !jobs.isEmpty else {
                ready.unlock()
                return
            }
            let next = jobs.removeFirst()
            ready.unlock()
            next.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
