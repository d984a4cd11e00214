import CLibPQ

extension PGConnection {
    /// Runs `queries` in one round trip (libpq's pipeline mode): all are
    /// sent, then one Sync, then every answer is read. Returns each
    /// statement's result, in order, or throws the first statement's error.
    ///
    /// Without an explicit BEGIN the statements up to the Sync form one
    /// implicit transaction: when one fails, PostgreSQL skips the rest and
    /// rolls back the ones before it. `pipelineResults` says which failed.
    public func pipeline(_ queries: [PGQuery]) throws(PGError) -> [PGResult] {
        var results: [PGResult] = []
        results.reserveCapacity(queries.count)
        for outcome in try pipelineResults(queries) {
            results.append(try outcome.get())
        }
        return results
    }

    /// `pipeline`, with every statement's own outcome: after the first
    /// error, the statements PostgreSQL skipped fail as `.pipelineAborted`.
    /// Throws only when the connection fails.
    ///
    /// A pipeline that began outside a transaction leaves none behind: if
    /// it opened one (BEGIN) and a statement failed, it is rolled back here.
    public func pipelineResults(_ queries: [PGQuery]) throws(PGError) -> [Result<PGResult, PGError>] {
        guard !queries.isEmpty else { return [] }
        let handle = try openHandle()
        let deadline = answerDeadline
        let startedIdle = PQtransactionStatus(handle) == PQTRANS_IDLE
        guard PQenterPipelineMode(handle) == 1 else { throw PGError.connection(.usage, handle) }

        // Per statement, the prepare it needs first (a statement seen before,
        // not yet prepared): its answer comes before the statement's own.
        var prepares: [(index: Int, key: PGStatementCache.Key, name: String)] = []
        var outcomes: [Result<PGResult, PGError>] = []
        do {
            for (index, query) in queries.enumerated() {
                let key = PGStatementCache.Key(query)
                var plan = statements.plan(for: key)
                if case .prepare(let name) = plan {
                    try send(handle) { PQsendPrepare(handle, name, query.sql, Int32(key.types.count), key.types) }
                    prepares.append((index, key, name))
                    plan = .prepared(name)
                }
                try send(query, as: plan, handle)
            }
            try send(handle) { PQpipelineSync(handle) }
            try flush(handle, until: deadline)

            var pendingPrepares = prepares[...]
            for index in queries.indices {
                if let prepare = pendingPrepares.first, prepare.index == index {
                    pendingPrepares.removeFirst()
                    let prepared = try pipelineOutcome(handle, until: deadline)
                    if case .success = prepared { statements.didPrepare(prepare.key, as: prepare.name) }
                    let executed = try pipelineOutcome(handle, until: deadline)
                    // A failed prepare is the statement's error; its execution was skipped.
                    if case .failure = prepared { outcomes.append(prepared) } else { outcomes.append(executed) }
                } else {
                    outcomes.append(try pipelineOutcome(handle, until: deadline))
                }
            }
            try awaitSync(handle, until: deadline)
        } catch {
            // The connection failed mid-pipeline: what it holds is unknown.
            if !isBroken { abandoned = true }
            throw error
        }
        guard PQexitPipelineMode(handle) == 1 else { throw PGError.connection(.usage, handle) }
        let failed = outcomes.contains { if case .failure = $0 { true } else { false } }
        if failed && startedIdle && PQtransactionStatus(handle) == PQTRANS_INERROR {
            try script("ROLLBACK")
        }
        return outcomes
    }

    /// One command's outcome in a pipeline: its result, then the NULL that
    /// ends it.
    private func pipelineOutcome(_ handle: OpaquePointer,
                                 until deadline: ContinuousClock.Instant) throws(PGError) -> Result<PGResult, PGError> {
        guard let result = try nextResult(handle, until: deadline) else {
            throw PGError(.connectionLost, message: "a pipelined statement had no result", connectionBroken: true)
        }
        let outcome: Result<PGResult, PGError>
        switch PQresultStatus(result) {
        case PGRES_TUPLES_OK, PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
            outcome = .success(PGResult(result))
        case PGRES_PIPELINE_ABORTED:
            PQclear(result)
            outcome = .failure(PGError(.pipelineAborted, message: "skipped: an earlier statement in the pipeline failed"))
        default:
            outcome = .failure(PGError(result: result, connection: handle))
            PQclear(result)
        }
        if let extra = try nextResult(handle, until: deadline) {
            // COPY in a pipeline, or a multi-statement string: not supported.
            PQclear(extra)
            throw PGError(.usage, message: "a pipelined statement gave more than one result", connectionBroken: true)
        }
        return outcome
    }

    /// Reads up to the pipeline's Sync.
    private func awaitSync(_ handle: OpaquePointer, until deadline: ContinuousClock.Instant) throws(PGError) {
        guard let result = try nextResult(handle, until: deadline) else {
            throw PGError(.connectionLost, message: "the pipeline's end did not arrive", connectionBroken: true)
        }
        let status = PQresultStatus(result)
        PQclear(result)
        guard status == PGRES_PIPELINE_SYNC else {
            throw PGError(.usage, message: "unexpected \(String(cString: PQresStatus(status))) at the pipeline's end",
                          connectionBroken: true)
        }
    }
}
