import APNsCore
import DeliveryEngine
import Foundation
import LeasedQueue
import Postgres

/// Completing a batch of sends: the rows ``OutboxSettlement`` computed, written in one statement
/// fenced on each row's lease owner and version.
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

        mutating func add(_ other: CompletionResult) {
            fencedOut += other.fencedOut
            deleted += other.deleted
            superseded += other.superseded
            newlyPausedApps += other.newlyPausedApps
            deliveriesWritten += other.deliveriesWritten
        }
    }

    /// Writes the completions of one batch of `owner`'s sends. Each row's settlement is computed
    /// by ``OutboxSettlement`` on the row as its claim read it and written in one statement,
    /// fenced on `owner` still holding the row at that version; the rows it did not write
    /// (changed by ingest during the send, no longer `owner`'s, or whose claimed state is not
    /// known) are then read again under their row lock and settled on what they hold now, in
    /// one transaction. Nothing of a row `owner` no longer holds is written. `routineInterval`
    /// (seconds) spaces a routine payload that arrived during a send after the one just sent.
    /// `now` is the worker's clock, bound as a parameter: the backoffs, the routine spacing, the
    /// channel's `last_sent_at`, the times its phones were shown a body and an alert, and the
    /// delivery records are dated by it, as the claim and the statistics that compare them are
    /// (the `updated_at` and `paused_at` audit columns keep the database's clock: no rule reads
    /// them).
    ///
    /// With each row: the `deliveries` row is appended; the channel's `last_timestamp`,
    /// `last_sent_at`, the body its phones show (`shown_payload`) and the alert they showed last
    /// (`alert_payload`) follow an accepted send, its status becomes `gone` when APNs says so;
    /// the budget ledger entry is appended; the app is paused (reported once, by whichever
    /// completion paused it).
    ///
    /// A deadlock or serialization failure is retried (twice); other errors are thrown, and
    /// what was not yet written stays leased until the lease runs out.
    @discardableResult
    package func complete(
        _ completions: [DeliveryCompletion], owner: String, routineInterval: Double, at now: Date
    ) async throws -> CompletionResult {
        guard !completions.isEmpty else { return CompletionResult() }
        var result = CompletionResult()
        var unsettled: [DeliveryCompletion] = []
        var writes: [CompletionWrite] = []
        for completion in completions {
            if let claimed = completion.claimedRow {
                writes.append(CompletionWrite(completion, row: claimed, receivedAt: [:], now: now, routineInterval: routineInterval))
            } else {
                unsettled.append(completion)
            }
        }
        if !writes.isEmpty {
            let written = try await conflicts.run { try await pool.query(Self.writeStatement(writes, owner: owner)) }
            let outcome = try Self.outcome(written, of: writes)
            result.add(outcome.result)
            unsettled += completions.filter { outcome.unwritten.contains($0.channelID) }
        }
        if !unsettled.isEmpty {
            result.add(try await conflicts.run { try await settleAgain(unsettled, owner: owner, routineInterval: routineInterval, now: now) })
        }
        result.fencedOut.sort()
        result.superseded.sort()
        result.deleted.sort()
        result.newlyPausedApps.sort { $0.id < $1.id }
        return result
    }

    /// Reads the rows of `completions` that `owner` still holds under their row lock, settles
    /// them on what they hold now and writes the result, in one transaction.
    private func settleAgain(
        _ completions: [DeliveryCompletion], owner: String, routineInterval: Double, now: Date
    ) async throws -> CompletionResult {
        let ids = completions.map(\.channelID).sorted()
        return try await pool.withTransaction { connection in
            var current: [Int64: (row: OutboxSettlement.Row, receivedAt: [Int64: Date])] = [:]
            for row in try await connection.query(Self.lockedRows(ids, owner: owner)) {
                current[try row.decode("channel_id")] = (try OutboxSettlement.Row(stored: row), try Self.receivedAt(row))
            }
            let writes = completions.compactMap { completion in
                current[completion.channelID].map {
                    CompletionWrite(completion, row: $0.row, receivedAt: $0.receivedAt, now: now, routineInterval: routineInterval)
                }
            }
            var result = CompletionResult()
            result.fencedOut = ids.filter { current[$0] == nil }
            if !writes.isEmpty {
                result.add(try Self.outcome(try await connection.query(Self.writeStatement(writes, owner: owner)), of: writes).result)
            }
            return result
        }
    }

    /// A deadlock or serialization failure runs the write again (twice at most).
    private var conflicts: ConflictRetry { ConflictRetry(work: "completion", attempts: 3, logger: logger) }

    /// `owner`'s rows among `ids`, locked in channel order (so that concurrent writers cannot
    /// deadlock on them), with the receive times of the events they list.
    private static func lockedRows(_ ids: [Int64], owner: String) -> SQL {
        """
        SELECT o.channel_id, o.version, o.alerts, o.alerting, o.priority, o.due_at, o.not_before, o.attempts, o.last_error,
               o.event_ids, o.coalesced, o.first_ingested_at,
               ARRAY(SELECT e.id FROM events e WHERE e.id = ANY(o.event_ids) ORDER BY e.id) AS known_events,
               ARRAY(SELECT e.received_at FROM events e WHERE e.id = ANY(o.event_ids) ORDER BY e.id) AS known_received_at
        FROM outbox o
        WHERE o.channel_id = ANY(\(ids)) AND \(Self.queue.isHeld(by: owner))
        ORDER BY o.channel_id
        FOR UPDATE
        """
    }

    private static func receivedAt(_ row: PostgresRow) throws -> [Int64: Date] {
        let ids: [Int64] = try row.decode("known_events")
        let times: [Date] = try row.decode("known_received_at")
        return Dictionary(zip(ids, times), uniquingKeysWith: { first, _ in first })
    }

    /// The write: ``CompletionColumn/rows(of:)`` as `w`, applied to the rows `owner` still
    /// holds at the version each write was computed on. It decides nothing: every value comes
    /// from the settlement. The fence is in the delete and the update themselves (a row held by
    /// another owner, or changed since it was read, matches neither and is left alone: the
    /// caller reads it again under its lock), so no row is locked before it is written: a
    /// `SELECT … FOR UPDATE` logs a lock record per row in the WAL beside the write. `w` is in
    /// channel order, the order the other writers of `outbox` lock rows in, and the delete and
    /// the update walk it (by the primary key); a deadlock that still comes is retried.
    /// (Postgres runs every data-modifying `WITH` part whether or not the result reads it.)
    private static func writeStatement(_ writes: [CompletionWrite], owner: String) -> SQL {
        """
        WITH w AS MATERIALIZED (\(CompletionColumn.rows(of: writes)) ORDER BY channel_id),
        deleted AS (
            DELETE FROM outbox o USING w
            WHERE o.channel_id = w.channel_id AND NOT w.keep
              AND \(Self.queue.isHeld(by: owner)) AND o.version = w.expected_version
            RETURNING o.channel_id
        ),
        kept AS (
            UPDATE outbox o SET
                \(LeasedQueue.releasing), claimed_version = NULL, updated_at = now(),
                alerts = w.alerts, alerting = w.alerting, priority = w.priority, due_at = w.due_at,
                not_before = w.not_before, attempts = w.attempts, last_error = w.last_error,
                event_ids = w.event_ids, coalesced = w.coalesced, first_ingested_at = w.first_ingested_at
            FROM w
            WHERE o.channel_id = w.channel_id AND w.keep
              AND \(Self.queue.isHeld(by: owner)) AND o.version = w.expected_version
            RETURNING o.channel_id
        ),
        fit AS MATERIALIZED (
            SELECT w.* FROM w WHERE w.channel_id IN (SELECT channel_id FROM deleted UNION ALL SELECT channel_id FROM kept)
        ),
        delivered AS (
            INSERT INTO deliveries (channel_id, app_id, event_ids, outbox_version, requested_priority, priority,
                                    downgraded, coalesced, attempt, outcome, status_code, reason, apns_request_id,
                                    apns_unique_id, apns_latency_ms, ingest_to_send_ms, ingest_to_claim_ms, sent_at)
            SELECT f.channel_id, f.app_id, f.d_event_ids, f.d_version, f.d_requested, f.d_priority,
                   f.d_downgraded, f.d_coalesced, f.d_attempt, f.d_outcome, f.d_status, f.d_reason, f.d_request_id,
                   f.d_unique_id, f.d_latency, f.d_ingest, f.d_claim_wait, f.d_at
            FROM fit f WHERE f.d_outcome IS NOT NULL
            RETURNING 1
        ),
        touched AS (
            UPDATE channels c SET
                last_timestamp = GREATEST(c.last_timestamp, f.sent_ts),
                last_sent_at = COALESCE(f.sent_at, c.last_sent_at),
                last_shown = CASE WHEN f.sent_ts IS NULL THEN c.last_shown ELSE f.sent_shown END,
                shown_payload = COALESCE(f.shown_payload, c.shown_payload),
                shown_at = COALESCE(f.shown_at, c.shown_at),
                alert_payload = COALESCE(f.shown_alert, c.alert_payload),
                alert_at = COALESCE(f.alert_at, c.alert_at),
                status = CASE WHEN f.retire AND c.status IN ('active', 'retiring') THEN 'gone' ELSE c.status END,
                updated_at = now()
            FROM fit f
            WHERE c.id = f.channel_id AND (f.sent_ts IS NOT NULL OR f.retire)
        ),
        budgeted AS (
            INSERT INTO budget_ledger (channel_id, at, kind, limit_after, barred_until)
            SELECT f.channel_id, f.b_at, f.b_kind, f.b_limit_after, f.b_barred_until FROM fit f WHERE f.b_kind IS NOT NULL
        ),
        paused AS (
            UPDATE apps a SET paused_reason = p.pause_reason, paused_at = now(), updated_at = now()
            FROM (SELECT DISTINCT ON (app_id) app_id, pause_reason FROM fit WHERE pause_reason IS NOT NULL ORDER BY app_id) p
            WHERE a.id = p.app_id AND a.paused_at IS NULL
            RETURNING a.id, a.bundle_id
        )
        SELECT 'written' AS kind, channel_id AS id, NULL::text AS bundle_id FROM fit
        UNION ALL SELECT 'paused', id, bundle_id FROM paused
        UNION ALL SELECT 'deliveries', count(*), NULL FROM delivered
        """
    }

    /// What the write did, and the rows it left alone (changed since they were read, or no
    /// longer `owner`'s: only a read under their lock tells which).
    private static func outcome(_ rows: [PostgresRow], of writes: [CompletionWrite]) throws -> (result: CompletionResult, unwritten: Set<Int64>) {
        var result = CompletionResult()
        var written: Set<Int64> = []
        for row in rows {
            let kind: String = try row.decode("kind")
            let id: Int64 = try row.decode("id")
            switch kind {
            case "written": written.insert(id)
            case "paused": result.newlyPausedApps.append(PausedApp(id: id, bundleID: try row.decode("bundle_id")))
            case "deliveries": result.deliveriesWritten = Int(id)
            default: break
            }
        }
        for write in writes where written.contains(write.completion.channelID) {
            switch write.operation {
            case .delete: result.deleted.append(write.completion.channelID)
            case .superseded: result.superseded.append(write.completion.channelID)
            case .retry, .release: break
            }
        }
        return (result, Set(writes.map(\.completion.channelID)).subtracting(written))
    }
}

/// One completion as the store writes it: its row as ``OutboxSettlement`` settled it (`nil`:
/// deleted), and the version that settlement was computed on (the write's fence).
struct CompletionWrite: Sendable {
    /// The completion.
    let completion: DeliveryCompletion
    /// The row version the settlement read.
    let expectedVersion: Int64
    /// What the settlement does to the row.
    let operation: OutboxSettlement.Operation
    /// The row it leaves; `nil` when it is deleted.
    let row: OutboxSettlement.Row?
    /// The completion's time, which dates its delivery record (`deliveries.sent_at`), by the
    /// clock every window of the statistics is measured with.
    let completedAt: Date
    /// When the channel was last sent to (`channels.last_sent_at`): the completion's time when
    /// APNs accepted the send; `nil` otherwise.
    var sentAt: Date? { completion.sentTimestamp == nil ? nil : completedAt }

    /// Settles `completion` on `row`.
    init(_ completion: DeliveryCompletion, row: OutboxSettlement.Row, receivedAt: [Int64: Date], now: Date, routineInterval: Double) {
        self.completion = completion
        expectedVersion = row.version
        let completed = completion.completed
        operation = OutboxSettlement.operation(completed, row: row)
        self.row = OutboxSettlement.settle(completed, row: row, receivedAt: receivedAt, now: now, routineInterval: routineInterval)
        completedAt = now
    }
}

extension OutboxSettlement.Row {
    /// Reads the columns of `outbox` a settlement decides on.
    init(stored row: PostgresRow) throws {
        let priority: Int = try row.decode("priority")
        guard let broadcastPriority = BroadcastPriority(rawValue: priority) else {
            throw PostgresError(.decodingFailed, "outbox.priority holds \(priority), not 5 or 10", column: "priority")
        }
        self.init(
            version: try row.decode("version"), alerts: try ClaimedDelivery.alerts(row), alerting: try row.decode("alerting"),
            priority: broadcastPriority, dueAt: try row.decode("due_at"), notBefore: try row.decode("not_before"),
            attempts: try row.decode("attempts"), lastError: try row.decode("last_error"), eventIDs: try row.decode("event_ids"),
            coalesced: try row.decode("coalesced"), firstIngestedAt: try row.decode("first_ingested_at"))
    }
}
