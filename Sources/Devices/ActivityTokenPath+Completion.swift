import DeliveryEngine
import Foundation
import LeasedQueue
import Postgres
import ServiceBase

/// Completing a batch of token-path sends: each answer decided by ``ActivityUpdateSettlement``
/// and the batch written in one statement over arrays, fenced on each row's lease owner and the
/// version it was decided on.
extension ActivityTokenPath {
    /// Writes the answers to `owner`'s sends back as of `now`: the tokens' shown timestamps,
    /// downgrade counts and prunes, the activities' budget entries, and each pending row
    /// deleted or released, in one statement. A row changed during its send (a newer update
    /// merged into it) is left alone by that statement, then read again under its lock and
    /// decided on what it holds now; a row `owner` no longer holds is not written.
    func complete(_ outcomes: [Outcome], owner: String, now: Date) async throws {
        guard !outcomes.isEmpty else { return }
        var random = SystemRandomNumberGenerator()
        let settled = outcomes.map { outcome in
            Settled(outcome: outcome, settlement: ActivityUpdateSettlement.settle(outcome.answer, now: now, retry: Self.retry, using: &random))
        }
        for item in settled { record(item) }
        let claimedRows = settled.map { item in
            RowWrite(tokenID: item.claimed.tokenID, expectedVersion: item.claimed.version, write: item.settlement.write(on: item.claimedRow))
        }
        let stale = try await retryingConflicts("completing token updates") {
            try await pool.query(Self.writeStatement(claimedRows, effects: settled, owner: owner, now: now))
                .map { try $0.decode("activity_token_id", as: Int64.self) }
        }
        guard !stale.isEmpty else { return }
        let again = Set(stale)
        try await retryingConflicts("completing token updates changed during their send") {
            try await settleAgain(settled.filter { again.contains($0.claimed.tokenID) }, owner: owner, now: now)
        }
    }

    /// One answer and its decision.
    struct Settled {
        let outcome: Outcome
        let settlement: ActivityUpdateSettlement.Settlement

        var claimed: Claimed { outcome.claimed }
        /// The row as the claim leased it.
        var claimedRow: ActivityUpdateSettlement.Row {
            ActivityUpdateSettlement.Row(version: claimed.version, dueAt: claimed.dueAt, attempts: claimed.attempts)
        }
    }

    /// A decided row write and the version it was decided on (its fence).
    struct RowWrite {
        let tokenID: Int64
        let expectedVersion: Int64
        let write: ActivityUpdateSettlement.RowWrite
        /// The update the row holds from now on, when the decision replaces it (and its body).
        var replacement: (update: ActivityUpdate, body: [UInt8])?

        var keep: Bool { write != .delete }
        var release: (dueAt: Date, attempts: Int, lastError: String?)? {
            guard case .release(let dueAt, let attempts, let lastError) = write else { return nil }
            return (dueAt, attempts, lastError)
        }
    }

    private func record(_ item: Settled) {
        guard let metrics else { return }
        metrics.updates.increment(.init(outcome: item.settlement.outcome.rawValue, reason: item.settlement.reason))
        if item.settlement.downgraded { metrics.downgraded.increment(AppLabels(app: item.outcome.bundleID)) }
        if let reason = item.settlement.prunedReason { metrics.pruned.increment(.init(kind: "activity", reason: reason)) }
    }

    /// Reads the rows of `settled` that `owner` still holds under their lock (in token order)
    /// and writes each decision applied to what the row holds now, in one transaction. The
    /// tokens and budgets were written with the first statement already.
    private func settleAgain(_ settled: [Settled], owner: String, now: Date) async throws {
        try await pool.withTransaction { connection in
            var held: [Int64: (row: ActivityUpdateSettlement.Row, update: ActivityUpdate)] = [:]
            for row in try await connection.query("""
                SELECT o.activity_token_id, o.version, o.due_at, o.attempts, o.payload, o.priority, o.alerting, o.final
                FROM activity_outbox o
                WHERE o.activity_token_id = ANY(\(settled.map(\.claimed.tokenID))::int8[]) AND \(Self.queue.isHeld(by: owner))
                ORDER BY o.activity_token_id
                FOR UPDATE
                """) {
                held[try row.decode("activity_token_id")] = (
                    ActivityUpdateSettlement.Row(
                        version: try row.decode("version"), dueAt: try row.decode("due_at"), attempts: Int(try row.decode("attempts", as: Int32.self))),
                    try ActivityUpdate(stored: row))
            }
            let rows = try settled.compactMap { item -> RowWrite? in
                guard let (current, update) = held[item.claimed.tokenID] else { return nil }
                var write = RowWrite(tokenID: item.claimed.tokenID, expectedVersion: current.version, write: item.settlement.write(on: current))
                if current.version != item.claimed.version, let sent = item.claimed.update,
                   let replacement = item.settlement.update(replacing: update, sent: sent),
                   case .release(_, let attempts, let lastError) = write.write {
                    write = RowWrite(
                        tokenID: write.tokenID, expectedVersion: write.expectedVersion,
                        write: .release(dueAt: replacement.dueAt, attempts: attempts, lastError: lastError),
                        replacement: (replacement, try replacement.payload.encode(for: .device)))
                }
                return write
            }
            guard !rows.isEmpty else { return }
            let stale = try await connection.query(Self.writeStatement(rows, effects: [], owner: owner, now: now))
            guard stale.isEmpty else { throw RowsChangedConcurrently() }
        }
    }

    /// The write: `rows` applied to the rows `owner` still holds at the version each was
    /// decided on, and `effects`' token and budget changes. It decides nothing: every value
    /// comes from the settlement. Returns the rows held at another version (left alone).
    /// `updated_at` is an audit column (no rule reads it): it keeps the database's clock.
    /// (Postgres runs every data-modifying `WITH` part whether or not the result reads it.)
    private static func writeStatement(_ rows: [RowWrite], effects: [Settled], owner: String, now: Date) -> SQL {
        let released = rows.map(\.release)
        let replaced = rows.map { $0.replacement?.update }
        let shown = effects.filter { $0.settlement.shownTimestamp != nil }
        let pruned = effects.filter { $0.settlement.prunedReason != nil }
        let spent = effects.filter { $0.settlement.budgetSpentAt != nil }
        return """
            WITH w AS MATERIALIZED (
                SELECT * FROM unnest(\(rows.map(\.tokenID))::int8[], \(rows.map(\.expectedVersion))::int8[], \(rows.map(\.keep))::bool[],
                                     \(released.map { $0?.dueAt })::timestamptz[], \(released.map { $0.map { Int32(clamping: $0.attempts) } })::int4[],
                                     \(released.map { $0?.lastError })::text[],
                                     \(rows.map { $0.replacement.map { String(decoding: $0.body, as: UTF8.self) } })::text[],
                                     \(replaced.map { $0.map { Int16($0.priority.rawValue) } })::int2[], \(replaced.map { $0?.alerting })::bool[],
                                     \(replaced.map { $0?.final })::bool[])
                     AS u(activity_token_id, expected_version, keep, due_at, attempts, last_error, payload, priority, alerting, final)
            ),
            -- The fence: the rows `owner` still holds, locked in token order.
            held AS MATERIALIZED (
                SELECT o.activity_token_id, o.version FROM activity_outbox o
                WHERE o.activity_token_id IN (SELECT activity_token_id FROM w) AND \(Self.queue.isHeld(by: owner))
                ORDER BY o.activity_token_id
                FOR UPDATE
            ),
            fit AS MATERIALIZED (
                SELECT w.* FROM w JOIN held h ON h.activity_token_id = w.activity_token_id AND h.version = w.expected_version
            ),
            deleted AS (
                DELETE FROM activity_outbox o USING fit WHERE o.activity_token_id = fit.activity_token_id AND NOT fit.keep
            ),
            released AS (
                UPDATE activity_outbox o SET \(LeasedQueue.releasing), due_at = fit.due_at, attempts = fit.attempts,
                    last_error = fit.last_error, updated_at = now(),
                    -- A replaced update (a retried send's alert riding on the newer state); else as it is.
                    payload = COALESCE(convert_to(fit.payload, 'UTF8'), o.payload), priority = COALESCE(fit.priority, o.priority),
                    alerting = COALESCE(fit.alerting, o.alerting), final = COALESCE(fit.final, o.final)
                FROM fit WHERE o.activity_token_id = fit.activity_token_id AND fit.keep
            ),
            shown AS (
                UPDATE activity_tokens t SET last_timestamp = GREATEST(t.last_timestamp, s.shown), downgraded = t.downgraded + s.downgraded
                FROM unnest(\(shown.map(\.claimed.tokenID))::int8[], \(shown.map { $0.settlement.shownTimestamp ?? 0 })::int8[],
                            \(shown.map { Int32($0.settlement.downgraded ? 1 : 0) })::int4[]) AS s(id, shown, downgraded)
                WHERE t.id = s.id
            ),
            -- Only the token the answer was about: one rotated since is alive.
            pruned AS (
                UPDATE activity_tokens t SET status = 'pruned', pruned_reason = p.reason, updated_at = now()
                FROM unnest(\(pruned.map(\.claimed.tokenID))::int8[], \(pruned.map(\.claimed.token))::text[],
                            \(pruned.map { $0.settlement.prunedReason ?? "" })::text[]) AS p(id, token, reason)
                WHERE t.id = p.id AND t.token = p.token
            ),
            spent AS (
                INSERT INTO activity_priority_sends (activity_token_id, sent_at)
                SELECT * FROM unnest(\(spent.map(\.claimed.tokenID))::int8[], \(spent.map { $0.settlement.budgetSpentAt ?? now })::timestamptz[])
            ),
            -- Sends older than the rolling hour count for nothing any more.
            expired AS (
                DELETE FROM activity_priority_sends s
                WHERE s.activity_token_id = ANY(\(spent.map(\.claimed.tokenID))::int8[])
                  AND s.sent_at <= \(now.addingTimeInterval(-ActivityBudget.window))
            )
            SELECT w.activity_token_id FROM w JOIN held h ON h.activity_token_id = w.activity_token_id AND h.version <> w.expected_version
            """
    }
}
