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
    /// a send after the one just sent.
    ///
    /// For each completion still held: the `deliveries` row is appended; the outbox row is
    /// deleted (sent or failed for good with its version unchanged; channel gone) or given back
    /// (superseded, retry with backoff, paused, released); the channel's `last_timestamp` and
    /// `last_sent_at` follow a send, its status becomes `gone` when APNs says so; the budget
    /// row is written; the app is paused (reported once, by whichever completion paused it).
    ///
    /// A deadlock or serialization failure is retried (twice); other errors are thrown and
    /// nothing is written.
    @discardableResult
    package func complete(_ completions: [DeliveryCompletion], owner: String, routineInterval: Double) async throws -> CompletionResult {
        guard !completions.isEmpty else { return CompletionResult() }
        let statement = Self.completionStatement(completions, owner: owner, routineInterval: routineInterval)
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

    /// The action names of the statement.
    private static func actionName(_ action: DeliveryCompletion.RowAction) -> String {
        switch action {
        case .finish: "finish"
        case .retry: "retry"
        case .cancelChannel: "cancel"
        case .pauseApp: "pause"
        case .release: "release"
        }
    }

    private static func completionStatement(_ completions: [DeliveryCompletion], owner: String, routineInterval: Double) -> SQL {
        let actions = completions.map { actionName($0.action) }
        let delays = completions.map { completion -> Double? in
            if case .retry(let delay, _) = completion.action { return max(0, delay) }
            return nil
        }
        let errors = completions.map { completion -> String? in
            if case .retry(_, let error) = completion.action { return error }
            return nil
        }
        let pauseReasons = completions.map { completion -> String? in
            if case .pauseApp(let reason) = completion.action { return reason }
            return nil
        }
        let deliveries = completions.map(\.delivery)
        let budgets = completions.map(\.budget)
        // Each row's event ids travel as the literal of a bigint array and are cast back.
        return """
            WITH u AS MATERIALIZED (
                SELECT * FROM unnest(
                    \(completions.map(\.channelID))::bigint[], \(completions.map(\.claimedVersion))::bigint[],
                    \(completions.map(\.appID))::bigint[], \(actions)::text[], \(delays)::float8[], \(errors)::text[],
                    \(pauseReasons)::text[], \(completions.map { arrayLiteral($0.claimedEventIDs) })::text[],
                    \(completions.map(\.claimedCoalesced))::int8[], \(completions.map(\.claimedAt))::timestamptz[],
                    \(completions.map(\.sentTimestamp))::int8[], \(completions.map(\.sentAlertKey))::text[],
                    \(completions.map(\.throttledUntil))::timestamptz[],
                    \(deliveries.map { $0.map { arrayLiteral($0.eventIDs) } })::text[], \(deliveries.map { $0?.outboxVersion })::bigint[],
                    \(deliveries.map { $0.map { Int($0.requestedPriority.rawValue) } })::int8[],
                    \(deliveries.map { $0.map { Int($0.priority.rawValue) } })::int8[],
                    \(deliveries.map { $0?.downgraded })::bool[], \(deliveries.map { $0?.coalesced })::int8[],
                    \(deliveries.map { $0?.attempt })::int8[], \(deliveries.map { $0?.outcome.rawValue })::text[],
                    \(deliveries.map { $0?.statusCode })::int8[], \(deliveries.map { $0?.reason })::text[],
                    \(deliveries.map { $0?.apnsRequestID })::text[], \(deliveries.map { $0?.apnsUniqueID })::text[],
                    \(deliveries.map { $0?.apnsLatencyMilliseconds })::float8[],
                    \(deliveries.map { $0?.ingestToSendMilliseconds })::float8[],
                    \(budgets.map { $0?.windowStart })::timestamptz[], \(budgets.map { $0?.highPrioritySent })::int8[],
                    \(budgets.map { $0?.downgraded })::int8[], \(budgets.map { $0?.throttled })::int8[],
                    \(budgets.map { $0?.budgetLimit })::int8[], \(budgets.map { $0?.shrunkLimit })::int8[],
                    \(budgets.map { $0?.lastThrottledAt })::timestamptz[])
                AS u(channel_id, claimed_version, app_id, action, delay, error, pause_reason, claimed_events,
                     claimed_coalesced, claimed_at, sent_ts, sent_alert, throttled_until,
                     d_event_ids, d_version, d_requested, d_priority, d_downgraded, d_coalesced, d_attempt, d_outcome, d_status,
                     d_reason, d_request_id, d_unique_id, d_latency, d_ingest,
                     b_window, b_sent, b_downgraded, b_throttled, b_limit, b_shrunk, b_throttled_at)
            ),
            -- The fence: the rows `owner` still holds, locked in channel order, at their newest version.
            held AS MATERIALIZED (
                SELECT o.channel_id, o.version, o.alerts FROM outbox o
                WHERE o.channel_id IN (SELECT channel_id FROM u) AND o.lease_owner = \(owner)
                ORDER BY o.channel_id
                FOR UPDATE
            ),
            -- The alerts left once the one this send settled is removed (by key: ingest only
            -- appends, so it is still there, at the head).
            remaining AS MATERIALIZED (
                SELECT u.channel_id,
                       CASE WHEN u.sent_alert IS NULL THEN h.alerts ELSE COALESCE(
                           (SELECT jsonb_agg(t.a ORDER BY t.n) FROM jsonb_array_elements(h.alerts) WITH ORDINALITY AS t(a, n)
                            WHERE t.a ->> 'key' IS DISTINCT FROM u.sent_alert),
                           '[]'::jsonb) END AS alerts
                FROM u JOIN held h ON h.channel_id = u.channel_id
            ),
            -- A finished send deletes the row only when its state was the newest and no alert is left.
            plan AS MATERIALIZED (
                SELECT u.*, r.alerts AS remaining_alerts, h.alerts <> '[]'::jsonb AS had_alerts, CASE
                    WHEN u.action = 'cancel'
                      OR (u.action = 'finish' AND h.version = u.claimed_version AND r.alerts = '[]'::jsonb) THEN 'delete'
                    WHEN u.action = 'finish' THEN 'finished'
                    WHEN u.action = 'retry' THEN 'retry'
                    ELSE 'release' END AS op
                FROM u JOIN held h ON h.channel_id = u.channel_id JOIN remaining r ON r.channel_id = u.channel_id
            ),
            deleted AS (
                DELETE FROM outbox o USING plan p
                WHERE o.channel_id = p.channel_id AND p.op = 'delete' AND o.lease_owner = \(owner)
                RETURNING o.channel_id
            ),
            -- A row superseded during its send keeps only what the send did not carry: the events
            -- that came after the claim, the updates coalesced since, the ingest time of its oldest
            -- remaining event (from `events`, else the claim time, a lower bound). Ingest may have
            -- merged into the row in flight (it still lists the sent events: their count comes
            -- off) or written a fresh row (nothing of the sent one is left to remove).
            given_back AS (
                UPDATE outbox o SET
                    lease_owner = NULL,
                    lease_expires_at = NULL,
                    claimed_version = NULL,
                    updated_at = now(),
                    attempts = CASE p.op WHEN 'retry' THEN o.attempts + 1 WHEN 'finished' THEN 0 ELSE o.attempts END,
                    not_before = CASE p.op
                        WHEN 'retry' THEN now() + make_interval(secs => p.delay)
                        WHEN 'finished' THEN NULL
                        ELSE o.not_before END,
                    last_error = CASE p.op WHEN 'retry' THEN p.error WHEN 'finished' THEN NULL ELSE o.last_error END,
                    alerts = CASE p.op WHEN 'finished' THEN p.remaining_alerts ELSE o.alerts END,
                    throttled_until = GREATEST(o.throttled_until, p.throttled_until),
                    -- (A row stored before the queue existed carries its alert in the payload.)
                    alerting = CASE p.op WHEN 'finished'
                        THEN p.remaining_alerts <> '[]'::jsonb OR (o.alerting AND NOT p.had_alerts) ELSE o.alerting END,
                    priority = CASE WHEN p.op = 'finished' AND p.had_alerts AND p.remaining_alerts = '[]'::jsonb
                        THEN 5 ELSE o.priority END,
                    due_at = CASE WHEN p.op = 'finished' AND p.remaining_alerts = '[]'::jsonb AND NOT (o.alerting AND NOT p.had_alerts)
                        THEN GREATEST(o.due_at, now() + make_interval(secs => \(routineInterval)))
                        ELSE o.due_at END,
                    event_ids = CASE WHEN p.op = 'finished'
                        THEN ARRAY(SELECT t.e FROM unnest(o.event_ids) WITH ORDINALITY AS t(e, n)
                                   WHERE t.e <> ALL(p.claimed_events::bigint[]) ORDER BY t.n)
                        ELSE o.event_ids END,
                    coalesced = CASE WHEN p.op = 'finished' AND o.event_ids && p.claimed_events::bigint[]
                        THEN GREATEST(0, o.coalesced - p.claimed_coalesced - 1)
                        ELSE o.coalesced END,
                    first_ingested_at = CASE WHEN p.op = 'finished'
                        THEN COALESCE(
                            (SELECT min(ev.received_at) FROM events ev
                             WHERE ev.id = ANY(o.event_ids) AND ev.id <> ALL(p.claimed_events::bigint[])),
                            GREATEST(o.first_ingested_at, p.claimed_at))
                        ELSE o.first_ingested_at END
                FROM plan p
                WHERE o.channel_id = p.channel_id AND p.op <> 'delete' AND o.lease_owner = \(owner)
                RETURNING o.channel_id
            ),
            delivered AS (
                INSERT INTO deliveries (channel_id, app_id, event_ids, outbox_version, requested_priority, priority,
                                        downgraded, coalesced, attempt, outcome, status_code, reason, apns_request_id,
                                        apns_unique_id, apns_latency_ms, ingest_to_send_ms)
                SELECT p.channel_id, p.app_id, p.d_event_ids::bigint[], p.d_version, p.d_requested, p.d_priority,
                       p.d_downgraded, p.d_coalesced, p.d_attempt, p.d_outcome, p.d_status, p.d_reason, p.d_request_id,
                       p.d_unique_id, p.d_latency, p.d_ingest
                FROM plan p WHERE p.d_outcome IS NOT NULL
                RETURNING 1
            ),
            touched AS (
                UPDATE channels c SET
                    last_timestamp = CASE WHEN p.sent_ts IS NULL THEN c.last_timestamp ELSE GREATEST(c.last_timestamp, p.sent_ts) END,
                    last_sent_at = CASE WHEN p.sent_ts IS NULL THEN c.last_sent_at ELSE now() END,
                    status = CASE WHEN p.action = 'cancel' AND c.status IN ('active', 'retiring') THEN 'gone' ELSE c.status END,
                    updated_at = now()
                FROM plan p
                WHERE c.id = p.channel_id AND (p.sent_ts IS NOT NULL OR p.action = 'cancel')
                RETURNING c.id
            ),
            budgeted AS (
                INSERT INTO channel_budget (channel_id, window_start, high_priority_sent, downgraded, throttled, budget_limit,
                                            shrunk_limit, last_throttled_at)
                SELECT p.channel_id, p.b_window, p.b_sent, p.b_downgraded, p.b_throttled, p.b_limit, p.b_shrunk, p.b_throttled_at
                FROM plan p WHERE p.b_window IS NOT NULL
                ON CONFLICT (channel_id, window_start) DO UPDATE SET
                    high_priority_sent = EXCLUDED.high_priority_sent,
                    downgraded = EXCLUDED.downgraded,
                    throttled = EXCLUDED.throttled,
                    budget_limit = EXCLUDED.budget_limit,
                    shrunk_limit = EXCLUDED.shrunk_limit,
                    last_throttled_at = EXCLUDED.last_throttled_at
                RETURNING 1
            ),
            -- Accepted priority-10 sends: what the rolling-hour budget counts.
            spent AS (
                INSERT INTO channel_priority_sends (channel_id, sent_at)
                SELECT p.channel_id, now() FROM plan p WHERE p.d_outcome = 'sent' AND p.d_priority = 10
                RETURNING 1
            ),
            paused AS (
                UPDATE apps a SET paused_reason = p.pause_reason, paused_at = now(), updated_at = now()
                FROM (SELECT DISTINCT ON (app_id) app_id, pause_reason FROM plan WHERE action = 'pause' ORDER BY app_id) p
                WHERE a.id = p.app_id AND a.paused_at IS NULL
                RETURNING a.id, a.bundle_id
            )
            SELECT 'fenced' AS kind, u.channel_id AS id, NULL::text AS bundle_id
                FROM u WHERE u.channel_id NOT IN (SELECT channel_id FROM held)
            UNION ALL SELECT 'superseded', channel_id, NULL FROM plan WHERE op = 'finished'
            UNION ALL SELECT 'deleted', channel_id, NULL FROM deleted
            UNION ALL SELECT 'given_back', channel_id, NULL FROM given_back
            UNION ALL SELECT 'paused', id, bundle_id FROM paused
            UNION ALL SELECT 'deliveries', count(*), NULL FROM delivered
            UNION ALL SELECT 'channels', count(*), NULL FROM touched
            UNION ALL SELECT 'budgets', count(*), NULL FROM budgeted
            """
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

    /// `{1,2,3}`: the literal of a bigint array, for arrays of arrays sent through `unnest`.
    private static func arrayLiteral(_ values: [Int64]) -> String {
        "{" + values.map(String.init).joined(separator: ",") + "}"
    }
}
