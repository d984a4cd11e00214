import CSenseiHTTP
import Synchronization

/// What the log line of a request needs, kept past the request's buffers.
struct RequestLabel: Sendable {
    let id: UInt64
    /// `monotonicNanoseconds()` at the request's arrival.
    let started: UInt64
    let method: String
    let path: String
}

/// A connection pointer, handed to whichever thread answers it.
struct ConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// How a handler answers one request, now or later.
///
/// Answered while the handler is still running, the response is queued on
/// the worker thread as usual. Otherwise the connection is suspended when the
/// handler returns, the worker goes on serving other connections, and
/// `respond` (from the store's writer thread, say) keeps the response and
/// resumes the connection; MHD then calls the worker back, which queues it.
/// So the thread answering does no more than that (the writer answers for
/// every request of a commit before it can start the next one).
public final class Responder: Sendable {
    private enum State {
        case handling
        case answeredEarly(Response)
        case suspended
        /// Answered while suspended; the worker queues it once resumed.
        case resumed(Response)
        case done
    }

    private let server: HTTPServer
    private let connection: ConnectionHandle
    private let label: RequestLabel
    private let state = Mutex<State>(.handling)
    private let route = Atomic<Int>(-1)

    init(server: HTTPServer, connection: ConnectionHandle, label: RequestLabel) {
        self.server = server
        self.connection = connection
        self.label = label
    }

    /// Names what the request is for the observer (a route's number, say),
    /// before answering; the number means what the observer makes of it.
    public func tag(route: Int) {
        self.route.store(route, ordering: .relaxed)
    }

    /// Answers the request; later calls are ignored.
    public func respond(_ response: Response) {
        let resume = state.withLock { state -> Bool in
            switch state {
            case .handling:
                state = .answeredEarly(response)
                return false
            case .suspended:
                state = .resumed(response)
                server.noteResumed(id: label.id)
                return true
            case .answeredEarly, .resumed, .done:
                return false
            }
        }
        guard resume else { return }
        sensei_connection_resume(connection.pointer)
    }

    /// The answer `respond` left for a resumed connection, once.
    func takeResumedAnswer() -> Response? {
        state.withLock { state in
            guard case .resumed(let response) = state else { return nil }
            state = .done
            return response
        }
    }

    /// Queues `response` on the connection's worker thread.
    func queue(_ response: Response) {
        server.queue(response, on: connection.pointer, request: label, route: route.load(ordering: .relaxed))
    }

    /// Called on the worker thread once the handler returns.
    func handlerReturned() {
        let early = state.withLock { state -> Response? in
            if case .answeredEarly(let response) = state {
                state = .done
                return response
            }
            // Suspend under the lock, so a `respond` racing in cannot resume
            // a connection that is not suspended yet.
            guard server.noteSuspending(self, id: label.id) else {
                state = .done
                return HTTPServer.stopping
            }
            state = .suspended
            sensei_connection_suspend(connection.pointer)
            return nil
        }
        if let early { queue(early) }
    }
}
