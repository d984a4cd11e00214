import Foundation

/// Checks `condition` every few milliseconds until it gives a value or
/// `seconds` pass (then nil): the one way tests wait on something that has
/// no event to wait for (a line in a child's log, a counter, a file).
@_disfavoredOverload
package func poll<T>(seconds: Double, every interval: Duration = .milliseconds(5),
                     _ condition: () throws -> T?) rethrows -> T? {
    let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
    while true {
        if let value = try condition() { return value }
        if ContinuousClock.now >= deadline { return nil }
        Thread.sleep(forTimeInterval: Double(interval.components.attoseconds) / 1e18 + Double(interval.components.seconds))
    }
}

/// Waits (up to `seconds`) until `condition` holds; false if it never did.
@_disfavoredOverload
@discardableResult
package func waitUntil(seconds: Double, every interval: Duration = .milliseconds(5),
                       _ condition: () throws -> Bool) rethrows -> Bool {
    try poll(seconds: seconds, every: interval) { try condition() ? true : nil } ?? false
}

/// What a bounded wait throws when its condition never held.
package struct WaitTimeout: Error, CustomStringConvertible {
    package let description: String

    package init(description: String) {
        self.description = description
    }
}

/// Waits (up to `seconds`, a bound that only catches a hang) until
/// `condition` holds; throws saying `what` it waited for if it never did.
@_disfavoredOverload
package func waitUntil(_ what: String, seconds: Double = 20, every interval: Duration = .milliseconds(10),
                       _ condition: () throws -> Bool) throws {
    guard try waitUntil(seconds: seconds, every: interval, condition) else {
        throw WaitTimeout(description: "timed out after \(seconds) s waiting for: \(what)")
    }
}

/// `poll` for async code: it sleeps with `Task.sleep`, so a wait holds no
/// thread of the cooperative pool (on two cores, blocked pool threads can
/// stall the very work being waited for). An overload: in an async function
/// Swift picks it, and asks for `await`.
package func poll<T>(seconds: Double, every interval: Duration = .milliseconds(5),
                     _ condition: () async throws -> T?) async throws -> T? {
    let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
    while true {
        if let value = try await condition() { return value }
        if ContinuousClock.now >= deadline { return nil }
        try await Task.sleep(for: interval)
    }
}

/// `waitUntil(seconds:)` for async code (see the async `poll`).
@discardableResult
package func waitUntil(seconds: Double, every interval: Duration = .milliseconds(5),
                       _ condition: () async throws -> Bool) async throws -> Bool {
    try await poll(seconds: seconds, every: interval) { try await condition() ? true : nil } ?? false
}

/// `waitUntil(what, seconds:)` for async code (see the async `poll`).
package func waitUntil(_ what: String, seconds: Double = 20, every interval: Duration = .milliseconds(10),
                       _ condition: () async throws -> Bool) async throws {
    guard try await waitUntil(seconds: seconds, every: interval, condition) else {
        throw WaitTimeout(description: "timed out after \(seconds) s waiting for: \(what)")
    }
}

/// `pollAsync` and `eventually` are the async `poll` and `waitUntil` under
/// names of their own, for code that reads better with them.
package func pollAsync<T>(seconds: Double, every interval: Duration = .milliseconds(5),
                          _ condition: () async throws -> T?) async throws -> T? {
    try await poll(seconds: seconds, every: interval, condition)
}

package func eventually(_ what: String, seconds: Double = 20, every interval: Duration = .milliseconds(10),
                        _ condition: () async throws -> Bool) async throws {
    try await waitUntil(what, seconds: seconds, every: interval, condition)
}
