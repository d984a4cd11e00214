import CSenseiHTTP
import Synchronization

/// The body of a response that stays open and is written as it comes
/// (server-sent events), through libmicrohttpd's callback responses.
///
/// MHD asks for bytes when the socket can take them. With none waiting the
/// connection is suspended (MHD would otherwise ask again at once, a busy
/// loop) and `send` resumes it. At most `capacity` bytes wait for a client:
/// one that reads slower than the stream is cut, so that it never holds
/// memory or the thread sending (the store's writer).
public final class ResponseStream: Sendable {
    private struct State {
        var pending: [UInt8] = []
        /// Bytes of `pending` already handed to MHD.
        var handed = 0
        /// Set once queued on a connection; nil again once MHD is done with it.
        var connection: ConnectionHandle?
        var suspended = false
        /// End once `pending` is out.
        var finishing = false
        /// Cut the connection at MHD's next call.
        var aborted = false
        /// MHD let go of the response: nothing more can be sent.
        var over = false
        /// The server's hook for that moment.
        var released: (@Sendable () -> Void)?
    }

    public let capacity: Int
    private let state = Mutex(State())
    private let closed: @Sendable () -> Void

    /// `closed` runs once, when the response is over for whatever reason
    /// (finished, cut, the client gone, the server stopping), on an MHD thread.
    public init(capacity: Int, closed: @escaping @Sendable () -> Void) {
        self.capacity = capacity
        self.closed = closed
    }

    /// Queues `bytes`; false when the stream is over, or the client so far
    /// behind that it was cut just now.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        let (accepted, resume) = state.withLock { state -> (Bool, ConnectionHandle?) in
            guard !state.over, !state.aborted, !state.finishing else { return (false, nil) }
            guard state.pending.count - state.handed + bytes.count <= capacity else {
                state.aborted = true
                state.pending = []
                state.handed = 0
                return (false, Self.unsuspend(&state))
            }
            state.pending.append(contentsOf: bytes)
            return (true, Self.unsuspend(&state))
        }
        if let resume { sensei_connection_resume(resume.pointer) }
        return accepted
    }

    /// Ends the response once what is queued has gone out.
    public func finish() {
        let resume = state.withLock { state -> ConnectionHandle? in
            guard !state.finishing else { return nil }
            state.finishing = true
            return Self.unsuspend(&state)
        }
        if let resume { sensei_connection_resume(resume.pointer) }
    }

    public var isOver: Bool { state.withLock { $0.over || $0.aborted } }

    /// The connection to resume, if suspended: resumed by the caller after
    /// the lock (only once: the flag is cleared here), since MHD takes its
    /// own locks to resume. A suspended connection is never released, so
    /// the pointer stays good until then.
    private static func unsuspend(_ state: inout State) -> ConnectionHandle? {
        guard state.suspended, let connection = state.connection else { return nil }
        state.suspended = false
        return connection
    }

    // MARK: - Called by the HTTP layer

    /// The MHD response reading from this stream; it holds the stream until released.
    /// `released` runs once MHD is done with it, before `closed`.
    func makeResponse(on connection: ConnectionHandle, released: @escaping @Sendable () -> Void) -> OpaquePointer? {
        state.withLock {
            $0.connection = connection
            $0.released = released
        }
        let context = Unmanaged.passRetained(self).toOpaque()
        guard let response = sensei_response_create_stream(4096, streamRead, streamRelease, context) else {
            Unmanaged<ResponseStream>.fromOpaque(context).release()
            released()
            return nil
        }
        return response
    }

    /// On the connection's worker thread: copies what waits into `buffer`.
    fileprivate func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        state.withLock { state in
            if state.aborted { return Int(SENSEI_STREAM_ABORT) }
            let waiting = state.pending.count - state.handed
            if waiting > 0 {
                let count = min(waiting, max)
                state.pending.withUnsafeBytes { bytes in
                    UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + state.handed, byteCount: count)
                }
                state.handed += count
                if state.handed == state.pending.count {
                    state.pending.removeAll(keepingCapacity: true)
                    state.handed = 0
                }
                return count
            }
            if state.finishing { return Int(SENSEI_STREAM_END) }
            // Suspended under the lock, so `send` cannot resume it first.
            if let connection = state.connection {
                state.suspended = true
                sensei_connection_suspend(connection.pointer)
            }
            return 0
        }
    }

    fileprivate func released() {
        let (first, hook) = state.withLock { state in
            defer {
                state.over = true
                state.released = nil
            }
            state.connection = nil
            state.pending = []
            return (!state.over, state.released)
        }
        hook?()
        if first { closed() }
    }
}

private let streamRead: sensei_stream_read_fn = { context, buffer, max in
    Unmanaged<ResponseStream>.fromOpaque(context!).takeUnretainedValue().read(into: buffer!, max: max)
}

private let streamRelease: sensei_stream_release_fn = { context in
    Unmanaged<ResponseStream>.fromOpaque(context!).takeRetainedValue().released()
}
