import Dispatch
import Foundation
import SenseiPostgres
import SenseiTestSupport
import Testing

@Suite struct PGNotificationTests {
    @Test func listenerGetsWhatAnotherConnectionNotifies() async throws {
        try await withConnection { sender, database in
            let listener = try database.connect()
            defer { listener.close() }
            let channel = "sensei events"
            try listener.listen(channel)

            // Nothing sent: the wait ends at its timeout, with nothing.
            let start = ContinuousClock.now
            #expect(try listener.nextNotification(timeout: .milliseconds(200)) == nil)
            let waited = ContinuousClock.now - start
            #expect(waited >= .milliseconds(190) && waited < .seconds(10))

            try sender.notify(channel, payload: "node 1: ü")
            try sender.notify("another channel", payload: "not for us")
            try sender.notify(channel, payload: "")
            let first = try listener.nextNotification(timeout: .seconds(20))
            #expect(first == PGNotification(channel: channel, payload: "node 1: ü", senderPID: sender.backendPID))
            #expect(try listener.nextNotification(timeout: .seconds(20))?.payload == "")

            // Inside a transaction, the notification waits for COMMIT.
            try sender.transaction {
                try sender.notify(channel, payload: "committed")
                #expect(try listener.nextNotification(timeout: .milliseconds(50)) == nil)
            }
            #expect(try listener.nextNotification(timeout: .seconds(20))?.payload == "committed")
            try listener.unlisten(channel)
        }
    }

    /// Shutdown: a thread parked in `nextNotification` wakes when another calls `interrupt()`.
    @Test func interruptWakesAWaitingListener() async throws {
        try await offThePool {
            let database = try PGTestDatabase()
            let listener = try database.connect()
            defer { listener.close() }
            try listener.listen("never")
            let woke = DispatchSemaphore(value: 0)
            let outcome = LockedBox<Result<PGNotification?, PGError>?>(nil)
            let waiter = Thread {
                outcome.value = Result { () throws(PGError) in try listener.nextNotification(timeout: .seconds(60)) }
                woke.signal()
            }
            waiter.start()
            // Before or during the wait: either way it returns, at once.
            listener.interrupt()
            #expect(woke.wait(timeout: .now() + 20) == .success)
            if case .success(let notification)? = outcome.value {
                #expect(notification == nil)
            } else {
                Issue.record("the wait ended with \(String(describing: outcome.value))")
            }
            // The interrupt is used up: the next wait times out as usual.
            #expect(try listener.nextNotification(timeout: .milliseconds(10)) == nil)
        }
    }
}

/// A value one thread writes and another reads after a semaphore.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) {
        stored = value
    }

    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
