import Testing

/// Runs each test of a suite (or a test) on a thread of its own
/// (`ThreadExecutor`), for tests that block: see there why. At most
/// `OwnThreadGate.width` such tests run at once, as the cooperative pool
/// would have bounded them; the others wait for a turn without holding a
/// thread.
package struct OwnThreadTrait: TestTrait, SuiteTrait, TestScoping {
    package var isRecursive: Bool { true }

    package func scopeProvider(for test: Test, testCase: Test.Case?) -> OwnThreadTrait? {
        testCase == nil ? nil : self
    }

    package func provideScope(for test: Test, testCase: Test.Case?,
                              performing function: @Sendable () async throws -> Void) async throws {
        await OwnThreadGate.shared.enter()
        let executor = ThreadExecutor(name: "test: \(test.name)")
        defer {
            executor.stop()
            Task { await OwnThreadGate.shared.leave() }
        }
        try await withTaskExecutorPreference(executor) { try await function() }
    }
}

extension Trait where Self == OwnThreadTrait {
    /// Each test on a thread of its own, off the cooperative pool.
    package static var ownThread: Self { OwnThreadTrait() }
}

/// How many own-thread tests may run at once: a few more than the cores,
/// since most of their time is spent waiting on a server or a child.
actor OwnThreadGate {
    static let shared = OwnThreadGate(width: 4)

    private var available: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(width: Int) {
        available = width
    }

    func enter() async {
        if available > 0 {
            available -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty {
            available += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
