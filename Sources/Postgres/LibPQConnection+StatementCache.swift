internal import CLibPQ
import ScorecastLogging

/// The prepared-statement path: each statement text is parsed and planned by the server once
/// per connection (`PQprepare`) and afterwards only bound and run (`PQexecPrepared`), which
/// costs the same single round trip as `PQexecParams` but skips the parser and planner.
extension LibPQConnection {
    /// SQLSTATEs that mean a cached statement is no longer usable as recorded.
    enum StaleStatement {
        /// `26000`: the server no longer has it (`DISCARD ALL`, `DEALLOCATE` behind our back).
        static let missing = "26000"
        /// `0A000`: "cached plan must not change result type" (its tables changed shape).
        static let resultTypeChanged = "0A000"
        /// `42P05`: the generated name is taken (someone ran SQL `PREPARE` with it).
        static let nameTaken = "42P05"

        /// Whether `error` says the statement it ran through the cache went stale.
        static func matches(_ error: PostgresError) -> Bool {
            error.code == .queryFailed && (error.sqlState == missing || error.sqlState == resultTypeChanged)
        }
    }

    /// Runs a statement through the cache. A stale entry (see `StaleStatement`) is dropped
    /// and, when the statement ran outside a transaction block (so its failure changed
    /// nothing), prepared again and retried once. Inside a block the failure has already
    /// aborted the caller's transaction, so the entry is dropped and the error rethrown.
    func executeCached(_ text: String, _ parameters: BoundParameters, binds: [PostgresBindValue]) throws(PostgresError) -> Outcome {
        let status = PQtransactionStatus(handle)
        // In an aborted transaction only ROLLBACK (or COMMIT, which rolls back) can succeed and
        // PREPARE fails: run unprepared so nothing half-done is recorded and a vanished
        // statement can never stand in the way of the ROLLBACK.
        if status == PQTRANS_INERROR {
            return try executeUnprepared(text, parameters, binds: binds)
        }
        let outsideBlock = status == PQTRANS_IDLE
        // DEALLOCATE inside a block could abort the caller's transaction (if the statement is
        // already gone): names evicted there wait for the first statement outside one.
        if outsideBlock && !statements.pendingDeallocation.isEmpty { deallocatePending() }
        let key = StatementCache.Key(text: text, parameterTypes: parameters.typeOIDs)
        var retried = false
        while true {
            let name: String
            if let cached = statements.lookup(key) {
                name = cached
            } else {
                statements.makeRoom()
                if outsideBlock { deallocatePending() }
                name = statements.makeName()
                do throws(PostgresError) {
                    try prepare(name, text, parameters, binds: binds)
                } catch {
                    if error.sqlState == StaleStatement.nameTaken && outsideBlock && !retried {
                        retried = true
                        continue
                    }
                    throw error
                }
                statements.insert(key, name: name)
            }
            let result = parameters.withValues { values in
                PQexecPrepared(handle, name, parameters.count, values, parameters.lengths, parameters.formats, 0)
            }
            do throws(PostgresError) {
                return try noteSessionChanges(outcome(of: result, binds: binds))
            } catch {
                guard StaleStatement.matches(error) else { throw error }
                statements.remove(key, stillPrepared: error.sqlState == StaleStatement.resultTypeChanged)
                guard outsideBlock && !retried else { throw error }
                retried = true
                logger.debug("preparing a stale statement again", ["statement": name, "sqlstate": error.sqlState ?? ""])
            }
        }
    }

    /// `PQprepare`: parses and analyses `text` under `name` with the bind types fixed.
    private func prepare(_ name: String, _ text: String, _ parameters: BoundParameters, binds: [PostgresBindValue]) throws(PostgresError) {
        let result = PQprepare(handle, name, text, parameters.count, parameters.types)
        _ = try outcome(of: result, binds: binds)
    }

    /// Deallocates the statements evicted from the cache. Only outside a transaction block:
    /// a `DEALLOCATE` that fails there would abort the caller's transaction. A failure here
    /// (the statement was already gone) is harmless and ignored.
    func deallocatePending() {
        for name in statements.takePendingDeallocation() {
            do throws(PostgresError) {
                _ = try outcome(of: PQexec(handle, "DEALLOCATE " + SQL.quoteIdentifier(name)), binds: [])
            } catch {
                if isBroken { return }
                logger.debug("could not deallocate a cached statement", ["statement": name, "error": error.message])
            }
        }
    }

    /// Keeps the cache in step with statements that drop prepared statements: `DISCARD ALL`
    /// and `DEALLOCATE ALL` drop every one; a single `DEALLOCATE` is checked with the server.
    func noteSessionChanges(_ outcome: Outcome) -> Outcome {
        guard statements.count > 0 || !statements.pendingDeallocation.isEmpty else { return outcome }
        switch outcome.commandTag {
        case "DISCARD ALL", "DEALLOCATE ALL": statements.removeAll()
        case "DEALLOCATE": reconcileStatements()
        default: break
        }
        return outcome
    }

    /// Whether a script's text could drop prepared statements (checked only when some are cached).
    func mayDeallocate(_ script: String) -> Bool {
        guard statements.count > 0 || !statements.pendingDeallocation.isEmpty else { return false }
        let lowered = script.lowercased()
        return lowered.contains("discard") || lowered.contains("deallocate")
    }

    /// Asks the server which of the cache's statements still exist and forgets the others.
    /// Skipped in an aborted transaction, where the query would fail.
    func reconcileStatements() {
        guard !isBroken, PQtransactionStatus(handle) != PQTRANS_INERROR else { return }
        let query = "SELECT name FROM pg_prepared_statements WHERE name LIKE '" + StatementCache.namePrefix + "%'"
        do throws(PostgresError) {
            let rows = try outcome(of: PQexec(handle, query), binds: []).rows
            var names = Set<String>()
            for row in rows {
                if let name = try? row.decode(0, as: String.self) { names.insert(name) }
            }
            statements.retain(serverNames: names)
        } catch {
            // Unknown state: forget everything; statements still on the server are unused
            // names, never mistaken for others since names are not reused.
            statements.removeAll()
        }
    }
}
