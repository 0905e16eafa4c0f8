import APNsCore
import DeliveryEngine
import Foundation
import Postgres

/// Completing a batch of sends: every outcome written in one fenced statement.
extension OutboxStore {
    /// An app a completion paused.
    package struct PausedApp: Sendable, Hashable {
        /// `apps.id`.
        package var id: Int64
        /// Its bundle id, for the log line.
        package var bundleID: String
    }

    /// What a batch completion did.
    package struct CompletionResult: Sendable, Hashable {
        /// Channels whose completion was dropped because `owner` no longer held their row (the
        /// lease expired and another worker took it, or the row is gone).
        package var fencedOut: [Int64] = []
        /// Rows deleted (sent or failed for good, version unchanged; or channel gone).
        package var deleted: [Int64] = []
        /// Rows released because a newer payload arrived during the send.
        package var superseded: [Int64] = []
        /// Apps paused by this completion (they were not paused before).
        package var newlyPausedApps: [PausedApp] = []
        /// Deliveries rows written.
        package var deliveriesWritten = 0
    }

    /// Writes the completions of one batch of `owner`'s sends in one statement (so in one
    /// transaction, in one round trip): each is applied only if `owner` still holds the row,
    /// checked under a row lock taken in channel order (so that concurrent writers cannot
    /// deadlock on it). `routineInterval` (seconds) spaces a routine payload that arrived during
    /// a send after the one just sent. `now` is the worker's clock, bound as a parameter: the
    /// backoffs, the routine spacing and the channel's `last_sent_at` are dated by it, as the
    /// claim that compares them is (the `updated_at`, `shown_at`, `alert_at` and `paused_at`
    /// audit columns keep the database's clock: no rule reads them).
    ///
    /// For each completion still held: the `deliveries` row is appended; the outbox row is
    /// deleted or given back as ``OutboxSettlement`` states (superseded, retry with backoff,
    /// paused, released); the channel's `last_timestamp`, `last_sent_at` and the body its
    /// phones show (`shown_payload`, `alert_payload`) follow a send, its status becomes `gone` when APNs says so; the budget
    /// ledger entry is appended; the app is paused (reported once, by whichever completion paused it).
    ///
    /// A deadlock or serialization failure is retried (twice); other errors are thrown and
    /// nothing is written.
    @discardableResult
    package func complete(
        _ completions: [DeliveryCompletion], owner: String, routineInterval: Double, at now: Date = Date()
    ) async throws -> CompletionResult {
        guard !completions.isEmpty else { return CompletionResult() }
        let statement = Self.completionStatement(completions, owner: owner, routineInterval: routineInterval, now: now)
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try Self.completionResult(try await pool.query(statement))
            } catch let error as PostgresError
                where attempt < 3
                && (error.sqlState == PostgresError.SQLState.deadlockDetected || error.sqlState == PostgresError.SQLState.serializationFailure)
            {
                logger.notice("completion hit a \(error.sqlState ?? "") conflict; retrying", ["attempt": String(attempt)])
            }
        }
    }

    /// The completion statement: ``CompletionColumn/rows(of:)`` as `u`, then the rules of
    /// ``OutboxSettlement`` carried out under the row lock (numbers refer to its rules; the
    /// operation and action names are its own, spliced in).
    private static func completionStatement(_ completions: [DeliveryCompletion], owner: String, routineInterval: Double, now: Date) -> SQL {
        let delete = name(OutboxSettlement.Operation.delete.rawValue)
        let superseded = name(OutboxSettlement.Operation.superseded.rawValue)
        let retry = name(OutboxSettlement.Operation.retry.rawValue)
        let release = name(OutboxSettlement.Operation.release.rawValue)
        let finishAction = name(DeliveryCompletion.RowAction.finish.name)
        let retryAction = name(DeliveryCompletion.RowAction.retry(delay: 0, error: "").name)
        let cancelAction = name(DeliveryCompletion.RowAction.cancelChannel.name)
        let pauseAction = name(DeliveryCompletion.RowAction.pauseApp(reason: "").name)
        let routinePriority = SQL.unsafeSQL(String(BroadcastPriority.opportunistic.rawValue))
        return """
            WITH u AS MATERIALIZED (\(CompletionColumn.rows(of: completions))),
            -- The fence: the rows `owner` still holds, locked in channel order, at their newest version.
            held AS MATERIALIZED (
                SELECT o.channel_id, o.version, o.alerts FROM outbox o
                WHERE o.channel_id IN (SELECT channel_id FROM u) AND o.lease_owner = \(owner)
                ORDER BY o.channel_id
                FOR UPDATE
            ),
            -- Rule 2: the alerts left once the one this send settled is removed, by key.
            remaining AS MATERIALIZED (
                SELECT u.channel_id,
                       CASE WHEN u.sent_alert IS NULL THEN h.alerts ELSE COALESCE(
                           (SELECT jsonb_agg(t.a ORDER BY t.n) FROM jsonb_array_elements(h.alerts) WITH ORDINALITY AS t(a, n)
                            WHERE t.a ->> 'key' IS DISTINCT FROM u.sent_alert),
                           '[]'::jsonb) END AS alerts
                FROM u JOIN held h ON h.channel_id = u.channel_id
            ),
            -- Rule 1: the operation.
            plan AS MATERIALIZED (
                SELECT u.*, r.alerts AS remaining_alerts, h.alerts <> '[]'::jsonb AS had_alerts, CASE
                    WHEN (u.action = \(cancelAction) AND r.alerts = '[]'::jsonb)
                      OR (u.action = \(finishAction) AND h.version = u.claimed_version AND r.alerts = '[]'::jsonb) THEN \(delete)
                    WHEN u.action = \(finishAction) THEN \(superseded)
                    WHEN u.action = \(retryAction) THEN \(retry)
                    ELSE \(release) END AS op
                FROM u JOIN held h ON h.channel_id = u.channel_id JOIN remaining r ON r.channel_id = u.channel_id
            ),
            deleted AS (
                DELETE FROM outbox o USING plan p
                WHERE o.channel_id = p.channel_id AND p.op = \(delete) AND o.lease_owner = \(owner)
                RETURNING o.channel_id
            ),
            -- Rules 2–9 on every kept row. Ingest may have merged into the row in flight (it
            -- still lists the sent events) or written a fresh row (nothing of the sent one left).
            given_back AS (
                UPDATE outbox o SET
                    lease_owner = NULL,
                    lease_expires_at = NULL,
                    claimed_version = NULL,
                    updated_at = now(),
                    attempts = CASE p.op WHEN \(retry) THEN o.attempts + 1 WHEN \(superseded) THEN 0 ELSE o.attempts END,
                    not_before = CASE p.op
                        WHEN \(retry) THEN \(now)::timestamptz + make_interval(secs => p.delay)
                        WHEN \(superseded) THEN NULL
                        ELSE o.not_before END,
                    last_error = CASE p.op WHEN \(retry) THEN p.error WHEN \(superseded) THEN NULL ELSE o.last_error END,
                    alerts = CASE p.op WHEN \(superseded) THEN p.remaining_alerts ELSE o.alerts END,
                    alerting = CASE p.op WHEN \(superseded)
                        THEN p.remaining_alerts <> '[]'::jsonb OR (o.alerting AND NOT p.had_alerts) ELSE o.alerting END,
                    priority = CASE WHEN p.op = \(superseded) AND p.had_alerts AND p.remaining_alerts = '[]'::jsonb
                        THEN \(routinePriority) ELSE o.priority END,
                    due_at = CASE WHEN p.op = \(superseded) AND p.remaining_alerts = '[]'::jsonb AND NOT (o.alerting AND NOT p.had_alerts)
                        THEN GREATEST(o.due_at, \(now)::timestamptz + make_interval(secs => \(routineInterval)))
                        ELSE o.due_at END,
                    event_ids = CASE WHEN p.op = \(superseded)
                        THEN ARRAY(SELECT t.e FROM unnest(o.event_ids) WITH ORDINALITY AS t(e, n)
                                   WHERE t.e <> ALL(p.claimed_events) ORDER BY t.n)
                        ELSE o.event_ids END,
                    coalesced = CASE WHEN p.op = \(superseded) AND o.event_ids && p.claimed_events
                        THEN GREATEST(0, o.coalesced - p.claimed_coalesced - 1)
                        ELSE o.coalesced END,
                    first_ingested_at = CASE WHEN p.op = \(superseded)
                        THEN COALESCE(
                            (SELECT min(ev.received_at) FROM events ev
                             WHERE ev.id = ANY(o.event_ids) AND ev.id <> ALL(p.claimed_events)),
                            GREATEST(o.first_ingested_at, p.claimed_at))
                        ELSE o.first_ingested_at END
                FROM plan p
                WHERE o.channel_id = p.channel_id AND p.op <> \(delete) AND o.lease_owner = \(owner)
                RETURNING o.channel_id
            ),
            delivered AS (
                INSERT INTO deliveries (channel_id, app_id, event_ids, outbox_version, requested_priority, priority,
                                        downgraded, coalesced, attempt, outcome, status_code, reason, apns_request_id,
                                        apns_unique_id, apns_latency_ms, ingest_to_send_ms, ingest_to_claim_ms)
                SELECT p.channel_id, p.app_id, p.d_event_ids, p.d_version, p.d_requested, p.d_priority,
                       p.d_downgraded, p.d_coalesced, p.d_attempt, p.d_outcome, p.d_status, p.d_reason, p.d_request_id,
                       p.d_unique_id, p.d_latency, p.d_ingest, p.d_claim_wait
                FROM plan p WHERE p.d_outcome IS NOT NULL
                RETURNING 1
            ),
            touched AS (
                UPDATE channels c SET
                    last_timestamp = CASE WHEN p.sent_ts IS NULL THEN c.last_timestamp ELSE GREATEST(c.last_timestamp, p.sent_ts) END,
                    last_sent_at = CASE WHEN p.sent_ts IS NULL THEN c.last_sent_at ELSE \(now)::timestamptz END,
                    last_shown = CASE WHEN p.sent_ts IS NULL THEN c.last_shown ELSE p.sent_shown END,
                    shown_payload = CASE WHEN p.shown_payload IS NULL THEN c.shown_payload ELSE p.shown_payload::jsonb END,
                    shown_at = CASE WHEN p.shown_payload IS NULL THEN c.shown_at ELSE now() END,
                    alert_payload = CASE WHEN p.shown_alert THEN p.shown_payload::jsonb ELSE c.alert_payload END,
                    alert_at = CASE WHEN p.shown_alert THEN now() ELSE c.alert_at END,
                    status = CASE WHEN p.action = \(cancelAction) AND c.status IN ('active', 'retiring') THEN 'gone' ELSE c.status END,
                    updated_at = now()
                FROM plan p
                WHERE c.id = p.channel_id AND (p.sent_ts IS NOT NULL OR p.action = \(cancelAction))
                RETURNING c.id
            ),
            -- The budget ledger entry ChannelBudget returned, dated by the worker's clock.
            budgeted AS (
                INSERT INTO budget_ledger (channel_id, at, kind, limit_after, barred_until)
                SELECT p.channel_id, p.b_at, p.b_kind, p.b_limit_after, p.b_barred_until FROM plan p WHERE p.b_kind IS NOT NULL
                RETURNING 1
            ),
            paused AS (
                UPDATE apps a SET paused_reason = p.pause_reason, paused_at = now(), updated_at = now()
                FROM (SELECT DISTINCT ON (app_id) app_id, pause_reason FROM plan WHERE action = \(pauseAction) ORDER BY app_id) p
                WHERE a.id = p.app_id AND a.paused_at IS NULL
                RETURNING a.id, a.bundle_id
            )
            SELECT 'fenced' AS kind, u.channel_id AS id, NULL::text AS bundle_id
                FROM u WHERE u.channel_id NOT IN (SELECT channel_id FROM held)
            UNION ALL SELECT 'superseded', channel_id, NULL FROM plan WHERE op = \(superseded)
            UNION ALL SELECT 'deleted', channel_id, NULL FROM deleted
            UNION ALL SELECT 'given_back', channel_id, NULL FROM given_back
            UNION ALL SELECT 'paused', id, bundle_id FROM paused
            UNION ALL SELECT 'deliveries', count(*), NULL FROM delivered
            UNION ALL SELECT 'channels', count(*), NULL FROM touched
            UNION ALL SELECT 'budgets', count(*), NULL FROM budgeted
            """
    }

    /// A constant name (an operation or action) as a SQL string literal; spliced, so the
    /// statement text stays the same for the statement cache.
    private static func name(_ value: String) -> SQL {
        .unsafeSQL("'" + value + "'")
    }

    private static func completionResult(_ rows: [PostgresRow]) throws -> CompletionResult {
        var result = CompletionResult()
        for row in rows {
            let kind: String = try row.decode("kind")
            let id: Int64 = try row.decode("id")
            switch kind {
            case "fenced": result.fencedOut.append(id)
            case "superseded": result.superseded.append(id)
            case "deleted": result.deleted.append(id)
            case "paused": result.newlyPausedApps.append(PausedApp(id: id, bundleID: try row.decode("bundle_id")))
            case "deliveries": result.deliveriesWritten = Int(id)
            default: break
            }
        }
        result.fencedOut.sort()
        result.superseded.sort()
        result.deleted.sort()
        result.newlyPausedApps.sort { $0.id < $1.id }
        return result
    }
}
