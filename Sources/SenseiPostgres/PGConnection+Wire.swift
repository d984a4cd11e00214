import CLibPQ

#if canImport(Glibc)
import Glibc
#endif

/// The waits under every call: the connection is in nonblocking mode, so
/// libpq never waits by itself; these poll(2) its socket up to a deadline.
extension PGConnection {
    var answerDeadline: ContinuousClock.Instant { .now + answerTimeout }

    /// Waits until the socket is readable, or also writable when `writable`.
    /// Past the deadline the connection is marked broken and this throws.
    @discardableResult
    func waitForSocket(_ handle: OpaquePointer, writable: Bool = false,
                       until deadline: ContinuousClock.Instant) throws(PGError) -> (readable: Bool, writable: Bool) {
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN | (writable ? POLLOUT : 0)), revents: 0)
        guard descriptor.fd >= 0 else { throw PGError.connection(.connectionLost, handle) }
        while true {
            let remaining = Self.milliseconds(until: deadline)
            let ready = poll(&descriptor, 1, remaining)
            if ready > 0 {
                // An error or hang-up is left for libpq's next read to report in its words.
                let failed = descriptor.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0
                return (descriptor.revents & Int16(POLLIN) != 0 || failed, descriptor.revents & Int16(POLLOUT) != 0)
            }
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 { throw PGError(.connectionLost, message: "poll failed: errno \(errno)", connectionBroken: true) }
            if remaining == 0 { throw timeout() }
        }
    }

    /// Marks the connection broken after a deadline passed, and says so.
    func timeout() -> PGError {
        abandoned = true
        return PGError(.timeout, message: "no answer from PostgreSQL within \(answerTimeout)", connectionBroken: true)
    }

    /// Sends everything libpq has queued. While the socket is full, it reads
    /// what the server sends meanwhile, so neither side waits on the other
    /// with full buffers (a long pipeline, a COPY).
    func flush(_ handle: OpaquePointer, until deadline: ContinuousClock.Instant) throws(PGError) {
        while true {
            switch PQflush(handle) {
            case 0: return
            case 1:
                let ready = try waitForSocket(handle, writable: true, until: deadline)
                if ready.readable && PQconsumeInput(handle) == 0 { throw PGError.connection(.connectionLost, handle) }
            default: throw PGError.connection(.connectionLost, handle)
            }
        }
    }

    /// The next result of the current command, nil at its end (PQgetResult),
    /// waiting for the server up to the deadline.
    func nextResult(_ handle: OpaquePointer, until deadline: ContinuousClock.Instant) throws(PGError) -> OpaquePointer? {
        while PQisBusy(handle) == 1 {
            try waitForSocket(handle, until: deadline)
            // On failure libpq has dropped the socket and keeps the reason:
            // PQgetResult hands it over as an error result without waiting.
            if PQconsumeInput(handle) == 0 { break }
        }
        return PQgetResult(handle)
    }

    /// Every result of the command(s) just sent, up to the end (NULL): the
    /// successful ones in order, or the first error once all are read (libpq
    /// must be drained before the connection takes the next command).
    func collectResults(_ handle: OpaquePointer, until deadline: ContinuousClock.Instant) throws(PGError) -> [PGResult] {
        var results: [PGResult] = []
        var firstError: PGError?
        while let result = try nextResult(handle, until: deadline) {
            let status = PQresultStatus(result)
            switch status {
            case PGRES_TUPLES_OK, PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
                results.append(PGResult(result))
            case PGRES_COPY_IN:
                PQclear(result)
                // Ends the COPY with an error, so the server answers and the
                // connection stays usable.
                _ = PQputCopyEnd(handle, "COPY FROM STDIN goes through PGConnection.copyFrom")
                try flush(handle, until: deadline)
                firstError = firstError ?? PGError(.usage, message: "COPY FROM STDIN goes through copyFrom")
            case PGRES_COPY_OUT:
                PQclear(result)
                try discardCopyOut(handle, until: deadline)
                firstError = firstError ?? PGError(.usage, message: "COPY TO STDOUT is not supported")
            default:
                firstError = firstError ?? PGError(result: result, connection: handle)
                PQclear(result)
            }
        }
        if let firstError { throw firstError }
        return results
    }

    private func discardCopyOut(_ handle: OpaquePointer, until deadline: ContinuousClock.Instant) throws(PGError) {
        while true {
            var buffer: UnsafeMutablePointer<CChar>?
            let length = PQgetCopyData(handle, &buffer, 1)
            if let buffer { PQfreemem(buffer) }
            if length == 0 {
                try waitForSocket(handle, until: deadline)
                if PQconsumeInput(handle) == 0 { return }
            } else if length < 0 {
                return
            }
        }
    }

    /// Whole milliseconds to `deadline`, rounded up, 0 once it has passed.
    static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else { return 0 }
        let (seconds, attoseconds) = remaining.components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }
}
