internal import CLibPQ

/// Pipeline mode (libpq 14+): every statement of a batch is sent before any result is read,
/// followed by one Sync, so the batch costs one round trip instead of one per statement.
///
/// The server runs the statements in order. Until the Sync they form one implicit
/// transaction (unless they open a block of their own with `BEGIN`); the first failure aborts
/// the rest (`PGRES_PIPELINE_ABORTED`) and rolls that implicit transaction back.
extension LibPQConnection {
    /// Sends `statements` as one pipeline and returns their outcomes in order. Throws the first
    /// failing statement's error with `statementIndex` set; the statements after it did not run.
    /// A pipeline started outside a transaction block that leaves one aborted (it ran `BEGIN`,
    /// then failed) is rolled back here, so nothing it wrote survives.
    func executePipeline(_ statements: [SQL]) throws(PostgresError) -> [Outcome] {
        for (index, sql) in statements.enumerated() {
            do throws(PostgresError) {
                try Self.checkSendable(sql)
            } catch {
                throw Self.naming(error, index)
            }
        }
        guard !statements.isEmpty else { return [] }
        guard consumePendingInput() else { throw closedError() }
        let startedIdle = PQtransactionStatus(handle) == PQTRANS_IDLE
        if startedIdle && statements.contains(where: { $0.usesStatementCache }) { deallocatePending() }
        var retried = false
        while true {
            let (outcomes, failure) = try runPipeline(statements, startedIdle: startedIdle)
            guard let failure else { return outcomes }
            // A cached statement that went stale (see `executeCached`) is prepared again and the
            // pipeline retried once, when its failure undid everything it ran: it started
            // outside a block and nothing before the failure ended a transaction.
            let stale = StaleStatement.matches(failure)
            let committed = outcomes.contains { $0.commandTag == "COMMIT" || $0.commandTag == "ROLLBACK" }
            guard stale && startedIdle && !committed && !retried else { throw failure }
            retried = true
            logger.debug("preparing a stale statement again", ["sqlstate": failure.sqlState ?? ""])
        }
    }

    /// One attempt: sends, reads, leaves pipeline mode, rolls back a block the pipeline left
    /// aborted. Returns the outcomes read before the first failure, and that failure.
    private func runPipeline(_ statements: [SQL], startedIdle: Bool) throws(PostgresError) -> ([Outcome], PostgresError?) {
        // Read before entering: while a pipeline has commands pending the status is ACTIVE.
        let inFailedBlock = PQtransactionStatus(handle) == PQTRANS_INERROR
        guard PQenterPipelineMode(handle) == 1 else {
            throw PostgresError(.queryFailed, Self.message(PQerrorMessage(handle), fallback: "could not enter pipeline mode"))
        }
        let sent = sendPipeline(statements, inFailedBlock: inFailedBlock)
        let read = readPipeline(sent)
        leavePipelineMode()
        if startedIdle && PQtransactionStatus(handle) == PQTRANS_INERROR {
            _ = try? outcome(of: PQexec(handle, "ROLLBACK"), binds: [])
        }
        return read
    }

    /// What was queued for one statement: how to read its results.
    private struct SentStatement {
        var binds: [PostgresBindValue]
        /// A `PQsendPrepare` queued ahead of it, with the cache entry to record once it succeeds.
        var preparing: (key: StatementCache.Key, name: String)?
        /// The cache entry it ran, to drop if the server reports it stale.
        var cached: StatementCache.Key?
    }

    /// Queues every statement and the Sync. Stops at the first send that fails (the connection
    /// broke); what was queued before it is still read, so the pipeline ends cleanly.
    private func sendPipeline(_ statements: [SQL], inFailedBlock: Bool) -> (sent: [SentStatement], failure: PostgresError?) {
        var sent: [SentStatement] = []
        var failure: PostgresError?
        // Names prepared by this pipeline, so a statement repeated in it is prepared once.
        var preparedHere: [StatementCache.Key: String] = [:]
        for (index, sql) in statements.enumerated() {
            let parameters = BoundParameters(sql.binds)
            var entry = SentStatement(binds: sql.binds)
            var accepted: Int32
            // In an aborted block only ROLLBACK can succeed: unprepared, as `executeCached` does.
            if self.statements.isEnabled && sql.usesStatementCache && !inFailedBlock {
                let key = StatementCache.Key(text: sql.text, parameterTypes: parameters.typeOIDs)
                let name: String
                if let cached = self.statements.lookup(key) ?? preparedHere[key] {
                    name = cached
                    entry.cached = key
                    accepted = 1
                } else {
                    name = self.statements.makeName()
                    preparedHere[key] = name
                    entry.preparing = (key, name)
                    accepted = PQsendPrepare(handle, name, sql.text, parameters.count, parameters.types)
                }
                if accepted == 1 {
                    accepted = parameters.withValues { values in
                        PQsendQueryPrepared(handle, name, parameters.count, values, parameters.lengths, parameters.formats, 0)
                    }
                }
            } else {
                accepted = parameters.withValues { values in
                    PQsendQueryParams(
                        handle, sql.text, parameters.count, parameters.types, values, parameters.lengths, parameters.formats, 0)
                }
            }
            guard accepted == 1 else {
                failure = isBroken ? closedError() : PostgresError(
                    .queryFailed, Self.message(PQerrorMessage(handle), fallback: "could not send the statement"), statementIndex: index)
                break
            }
            sent.append(entry)
        }
        if PQpipelineSync(handle) != 1, failure == nil { failure = closedError() }
        return (sent, failure)
    }

    /// Reads each queued statement's results, then the Sync's. Keeps the first error; later
    /// statements report `PGRES_PIPELINE_ABORTED` and are skipped.
    private func readPipeline(_ queued: (sent: [SentStatement], failure: PostgresError?)) -> ([Outcome], PostgresError?) {
        var outcomes: [Outcome] = []
        outcomes.reserveCapacity(queued.sent.count)
        var failure: PostgresError?
        for (index, statement) in queued.sent.enumerated() {
            if let preparing = statement.preparing {
                let prepared = nextResult()
                if failure == nil {
                    do throws(PostgresError) {
                        _ = try outcome(of: prepared, binds: statement.binds)
                        statements.makeRoom()
                        statements.insert(preparing.key, name: preparing.name)
                    } catch {
                        failure = Self.naming(error, index)
                    }
                } else {
                    PQclear(prepared)
                }
            }
            let result = nextResult()
            if failure != nil {
                PQclear(result)
                continue
            }
            do throws(PostgresError) {
                outcomes.append(noteSessionChanges(try outcome(of: result, binds: statement.binds)))
            } catch {
                if let key = statement.cached ?? statement.preparing?.key, StaleStatement.matches(error) {
                    statements.remove(key, stillPrepared: error.sqlState == StaleStatement.resultTypeChanged)
                }
                failure = Self.naming(error, index)
            }
        }
        // The Sync's own result ends the pipeline.
        while !isBroken, let result = PQgetResult(handle) {
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_PIPELINE_SYNC { break }
        }
        if let failure = queued.failure ?? failure { return (outcomes, failure) }
        if isBroken { return (outcomes, closedError()) }
        return (outcomes, nil)
    }

    /// Leaves pipeline mode, first reading anything still pending (only after an unexpected
    /// result order). A connection that cannot leave it is unusable: marked broken for the pool.
    private func leavePipelineMode() {
        guard PQpipelineStatus(handle) != PQ_PIPELINE_OFF else { return }
        for _ in 0..<3 {
            if PQexitPipelineMode(handle) == 1 { return }
            if isBroken { return }
            while let result = PQgetResult(handle) { PQclear(result) }
        }
        logger.warning("could not leave pipeline mode; closing the connection", [
            "error": Self.message(PQerrorMessage(handle), fallback: "")])
        markBroken()
    }

    /// One statement's result: libpq ends each with a NULL, read here too. `nil` when the
    /// connection broke.
    private func nextResult() -> OpaquePointer? {
        guard let result = PQgetResult(handle) else { return nil }
        while let extra = PQgetResult(handle) { PQclear(extra) }
        return result
    }

    /// `error`, marked as statement `index`'s.
    private static func naming(_ error: PostgresError, _ index: Int) -> PostgresError {
        var named = error
        named.statementIndex = index
        return named
    }
}
