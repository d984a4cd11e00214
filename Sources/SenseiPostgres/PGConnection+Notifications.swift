import CLibPQ

#if canImport(Glibc)
import Glibc
#endif

/// A NOTIFY that arrived on a channel this connection listens to.
public struct PGNotification: Sendable, Equatable {
    public let channel: String
    public let payload: String
    /// The server process of the connection that sent it.
    public let senderPID: Int32

    public init(channel: String, payload: String, senderPID: Int32) {
        self.channel = channel
        self.payload = payload
        self.senderPID = senderPID
    }
}

extension PGConnection {
    /// Starts listening on `channel` (quoted: any name is safe).
    public func listen(_ channel: String) throws(PGError) {
        try script("LISTEN " + quotedIdentifier(channel))
    }

    public func unlisten(_ channel: String) throws(PGError) {
        try script("UNLISTEN " + quotedIdentifier(channel))
    }

    /// Sends a notification (`pg_notify`): delivered to listeners when the
    /// current transaction commits, at once outside one.
    public func notify(_ channel: String, payload: String = "") throws(PGError) {
        try execute("SELECT pg_notify(\(channel), \(payload))")
    }

    /// The next notification: one already received, or the first to arrive
    /// within `timeout`. Nil when the timeout passes, or when `interrupt()`
    /// was called (before or during the wait), so a listener thread can be
    /// woken for shutdown. Throws when the connection is lost, so the
    /// caller reconnects (and listens again: a new connection listens to nothing).
    public func nextNotification(timeout: Duration) throws(PGError) -> PGNotification? {
        let handle = try openHandle()
        if let notification = takeNotification(handle) { return notification }
        let deadline = ContinuousClock.now + timeout
        var descriptors = [
            pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let remaining = Self.milliseconds(until: deadline)
            let ready = poll(&descriptors, 2, remaining)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 { throw PGError(.connectionLost, message: "poll failed: errno \(errno)", connectionBroken: true) }
            if descriptors[1].revents != 0 {
                var count: eventfd_t = 0
                _ = eventfd_read(wakeDescriptor, &count)
                return nil
            }
            if descriptors[0].revents != 0 {
                guard PQconsumeInput(handle) == 1 else { throw PGError.connection(.connectionLost, handle) }
                if let notification = takeNotification(handle) { return notification }
            }
            if ready == 0 && remaining == 0 { return nil }
        }
    }

    /// Wakes a `nextNotification` waiting on another thread (it returns
    /// nil), or makes the next one return at once. The one call that is
    /// safe from any thread, at any time before the connection is released.
    public func interrupt() {
        _ = eventfd_write(wakeDescriptor, 1)
    }

    private func takeNotification(_ handle: OpaquePointer) -> PGNotification? {
        guard let notify = PQnotifies(handle) else { return nil }
        defer { PQfreemem(notify) }
        return PGNotification(channel: String(cString: notify.pointee.relname),
                              payload: String(cString: notify.pointee.extra), senderPID: notify.pointee.be_pid)
    }

    /// `name` as an SQL identifier, quoted by libpq (PQescapeIdentifier).
    public func quotedIdentifier(_ name: String) throws(PGError) -> String {
        let handle = try openHandle()
        guard let quoted = PQescapeIdentifier(handle, name, name.utf8.count) else {
            throw PGError.connection(.usage, handle)
        }
        defer { PQfreemem(quoted) }
        return String(cString: quoted)
    }
}
