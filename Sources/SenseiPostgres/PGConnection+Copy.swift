import CLibPQ

extension PGConnection {
    /// Runs `COPY … FROM STDIN` and streams what `body` writes into it; the
    /// number of rows copied. The fastest way to insert many rows: one
    /// statement, no per-row round trip or parse.
    ///
    /// With `(FORMAT binary)` write rows with `appendRow`; each value must
    /// be of its column's exact type (`Int64` for bigint, `Int32` for
    /// integer, `Double` for double precision), as binary COPY does not
    /// convert. In text format write lines with `write`. When `body`
    /// throws, the COPY is aborted (nothing is inserted) and its error
    /// rethrown.
    @discardableResult
    public func copyFrom(_ sql: String, _ body: (inout PGCopyWriter) throws -> Void) throws -> Int {
        let handle = try openHandle()
        let deadline = answerDeadline
        try send(handle) { PQsendQueryParams(handle, sql, 0, nil, nil, nil, nil, 1) }
        try flush(handle, until: deadline)
        guard let started = try nextResult(handle, until: deadline) else {
            throw PGError(.connectionLost, message: "no answer to COPY", connectionBroken: true)
        }
        guard PQresultStatus(started) == PGRES_COPY_IN else {
            let error = PGResult.isSuccess(started)
                ? PGError(.usage, message: "copyFrom needs COPY … FROM STDIN, not \(String(cString: PQcmdStatus(started)))")
                : PGError(result: started, connection: handle)
            PQclear(started)
            _ = try collectResults(handle, until: deadline)
            throw error
        }
        var writer = PGCopyWriter(connection: self, handle: handle, binary: PQbinaryTuples(started) == 1)
        PQclear(started)
        do {
            try body(&writer)
            try writer.finish()
        } catch {
            try abortCopy(handle, reason: "\(error)")
            throw error
        }
        try endCopy(handle, failure: nil)
        return try collectResults(handle, until: answerDeadline).last?.affectedRows ?? 0
    }

    /// Ends the COPY with an error: the server rolls it back and answers.
    private func abortCopy(_ handle: OpaquePointer, reason: String) throws(PGError) {
        try endCopy(handle, failure: reason)
        // The server's answer is the error we just caused.
        _ = try? collectResults(handle, until: answerDeadline)
    }

    /// Ends the COPY: done, or failed for `failure`.
    private func endCopy(_ handle: OpaquePointer, failure: String?) throws(PGError) {
        let deadline = answerDeadline
        while true {
            let ended = failure.map { PQputCopyEnd(handle, $0) } ?? PQputCopyEnd(handle, nil)
            if ended == 1 { break }
            if ended < 0 { throw PGError.connection(.connectionLost, handle) }
            try waitToSend(handle, until: deadline)
        }
        try flush(handle, until: deadline)
    }

    /// Waits until libpq's full output buffer can take more: the socket is
    /// writable (and what the server sent meanwhile is read, so a readable
    /// socket does not make this spin).
    private func waitToSend(_ handle: OpaquePointer, until deadline: ContinuousClock.Instant) throws(PGError) {
        let ready = try waitForSocket(handle, writable: true, until: deadline)
        if ready.readable && PQconsumeInput(handle) == 0 { throw PGError.connection(.connectionLost, handle) }
        try flush(handle, until: deadline)
    }

    /// Queues `bytes` as COPY data, waiting while libpq's buffer is full.
    func putCopyData(_ handle: OpaquePointer, _ bytes: [UInt8]) throws(PGError) {
        let deadline = answerDeadline
        while true {
            let queued = bytes.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { PQputCopyData(handle, $0.baseAddress, Int32($0.count)) }
            }
            if queued == 1 { break }
            if queued < 0 { throw PGError.connection(.connectionLost, handle) }
            try waitToSend(handle, until: deadline)
        }
        // Sends without waiting for the socket to take it all; the next
        // put (or the end) waits if it must.
        if PQflush(handle) < 0 { throw PGError.connection(.connectionLost, handle) }
    }
}

extension PGResult {
    static func isSuccess(_ result: OpaquePointer) -> Bool {
        let status = PQresultStatus(result)
        return status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK || status == PGRES_EMPTY_QUERY
    }
}

/// What a `copyFrom` body writes into: binary rows, or text lines, sent
/// to the server in chunks as they fill.
public struct PGCopyWriter {
    private let connection: PGConnection
    private let handle: OpaquePointer
    /// The COPY's format, as the server announced it.
    public let binary: Bool
    private var buffer: [UInt8] = []
    /// Large enough that the per-call cost vanishes, small enough to stream.
    private static let chunkSize = 256 * 1024

    init(connection: PGConnection, handle: OpaquePointer, binary: Bool) {
        self.connection = connection
        self.handle = handle
        self.binary = binary
        buffer.reserveCapacity(Self.chunkSize + 4096)
        if binary {
            // The signature "PGCOPY\n\377\r\n\0", then flags and the header extension's length.
            buffer.append(contentsOf: [0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00])
            buffer.appendBigEndian(Int32(0))
            buffer.appendBigEndian(Int32(0))
        }
    }

    /// One row of a binary COPY: the values in the COPY's column order
    /// (`Optional.none` for NULL).
    public mutating func appendRow<each T: PGEncodable>(_ values: repeat each T) throws(PGError) {
        guard binary else { throw PGError(.usage, message: "appendRow is for COPY … (FORMAT binary); use write") }
        var fields: Int16 = 0
        for _ in repeat each values { fields += 1 }
        buffer.appendBigEndian(fields)
        for value in repeat each values {
            buffer.appendLengthPrefixed(value)
        }
        if buffer.count >= Self.chunkSize { try send() }
    }

    /// Raw COPY data: lines of a text or CSV COPY (each ending in "\n"),
    /// escaped as that format requires.
    public mutating func write(_ text: String) throws(PGError) {
        guard !binary else { throw PGError(.usage, message: "write is for text COPY; use appendRow for binary") }
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.chunkSize { try send() }
    }

    private mutating func send() throws(PGError) {
        try connection.putCopyData(handle, buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// The binary trailer (a field count of -1) and whatever is left.
    mutating func finish() throws(PGError) {
        if binary { buffer.appendBigEndian(Int16(-1)) }
        if !buffer.isEmpty { try send() }
    }
}
