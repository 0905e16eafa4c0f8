import DeliveryEngine
import Foundation
import Migrations
import ScorecastLogging
import Postgres
import ScorecastCore
import TestSupport

/// A migrated schema of the test's own, with helpers to set up apps, channels and outbox rows
/// the way the registry and ingest write them, and to read back what the workers wrote.
struct DeliveryDatabase: Sendable {
    let pool: PostgresPool

    static let schemaFolder = ScorecastProcess.schemaFolder

    /// Runs `body` with a freshly migrated schema, closing the pool afterwards.
    static func with<T: Sendable>(maxConnections: Int = 8, _ body: (DeliveryDatabase) async throws -> T) async throws -> T {
        let pool = try await TestDatabase.shared().makePool(maxConnections: maxConnections)
        do {
            let migrator = Migrator(files: try SchemaFolder.read(schemaFolder), logger: TestDatabase.logger)
            try await migrator.migrate(pool)
            let result = try await body(DeliveryDatabase(pool: pool))
            await pool.close()
            return result
        } catch {
            await pool.close()
            throw error
        }
    }

    // MARK: - Setup

    /// Inserts an app; returns its id.
    @discardableResult
    func addApp(
        bundleID: String = "com.example.scores", teamID: String = "TEAM000001", keyID: String = "KEY0000001",
        keyPath: String = "/nonexistent/key.p8", frequentUpdates: Bool = false, budgetPerHour: Int? = nil
    ) async throws -> Int64 {
        try await pool.query("""
            INSERT INTO apps (bundle_id, environment, team_id, key_id, key_path, frequent_updates, budget_per_hour)
            VALUES (\(bundleID), 'sandbox', \(teamID), \(keyID), \(keyPath), \(frequentUpdates), \(budgetPerHour as Int?))
            RETURNING id
            """)[0].decode("id")
    }

    /// Inserts a channel; returns its id.
    @discardableResult
    func addChannel(appID: Int64, apnsChannelID: String = UUID().uuidString, storagePolicy: Int = 0, status: String = "active") async throws -> Int64 {
        try await pool.query("""
            INSERT INTO channels (apns_channel_id, app_id, storage_policy, status)
            VALUES (\(apnsChannelID), \(appID), \(storagePolicy), \(status))
            RETURNING id
            """)[0].decode("id")
    }

    /// Upserts the channel's outbox row as ingest does: a new row, or a pending one replaced
    /// (version + 1, counted as coalesced, strongest priority kept). Returns the row's version.
    @discardableResult
    func enqueue(
        channelID: Int64, payload: [UInt8], timestamp: Int64, priority: Int = 10, alerting: Bool = true,
        eventID: Int64 = 1, dueIn seconds: Double = 0
    ) async throws -> Int64 {
        try await pool.query("""
            INSERT INTO outbox (channel_id, payload, payload_timestamp, priority, alerting, event_ids, first_ingested_at, due_at)
            VALUES (\(channelID), \(payload), \(timestamp), \(priority), \(alerting), ARRAY[\(eventID)]::bigint[], now(),
                    now() + make_interval(secs => \(seconds)))
            ON CONFLICT (channel_id) DO UPDATE SET
                version = outbox.version + 1,
                payload = EXCLUDED.payload,
                payload_timestamp = GREATEST(outbox.payload_timestamp, EXCLUDED.payload_timestamp),
                priority = GREATEST(outbox.priority, EXCLUDED.priority),
                alerting = outbox.alerting OR EXCLUDED.alerting,
                event_ids = outbox.event_ids || EXCLUDED.event_ids,
                coalesced = outbox.coalesced + 1,
                due_at = LEAST(outbox.due_at, EXCLUDED.due_at),
                updated_at = now()
            RETURNING version
            """)[0].decode("version")
    }

    /// Records a feed event (and its game) as ingest does; returns its id and receive time.
    func addEvent(gameID: String = "g1", seq: Int64) async throws -> (id: Int64, receivedAt: Date) {
        try await pool.execute("INSERT INTO games (id) VALUES (\(gameID)) ON CONFLICT DO NOTHING")
        let row = try await pool.query("""
            INSERT INTO events (feed, feed_event_id, game_id, seq, kind, occurred_at, outcome, body)
            VALUES ('test', \("e\(seq)"), \(gameID), \(seq), 'score', now(), 'accepted', '{}')
            RETURNING id, received_at
            """)[0]
        return (try row.decode("id"), try row.decode("received_at"))
    }

    /// A Live Activity update body with `score` as the home score.
    static func payload(score: Int, timestamp: Int64) -> [UInt8] {
        Array(#"{"aps":{"timestamp":\#(timestamp),"event":"update","content-state":{"homeScore":\#(score),"awayScore":0}}}"#.utf8)
    }

    // MARK: - Reading back

    /// The outbox row of a channel as it stands.
    struct OutboxSnapshot: Sendable {
        var version: Int64
        var payload: [UInt8]
        var leaseOwner: String?
        var leaseExpiresAt: Date?
        var attempts: Int
        var lastError: String?
        var dueAt: Date
        var notBefore: Date?
        var coalesced: Int
        var eventIDs: [Int64]
        var firstIngestedAt: Date
        var claimedVersion: Int64?
    }

    func outbox(_ channelID: Int64) async throws -> OutboxSnapshot? {
        try await pool.query("""
            SELECT version, payload, lease_owner, lease_expires_at, attempts, last_error, due_at, not_before, coalesced,
                   event_ids, first_ingested_at, claimed_version
            FROM outbox WHERE channel_id = \(channelID)
            """).first.map { row in
            OutboxSnapshot(
                version: try row.decode("version"), payload: try row.decode("payload"),
                leaseOwner: try row.decode("lease_owner"), leaseExpiresAt: try row.decode("lease_expires_at"),
                attempts: try row.decode("attempts"), lastError: try row.decode("last_error"),
                dueAt: try row.decode("due_at"), notBefore: try row.decode("not_before"), coalesced: try row.decode("coalesced"),
                eventIDs: try row.decode("event_ids"), firstIngestedAt: try row.decode("first_ingested_at"),
                claimedVersion: try row.decode("claimed_version"))
        }
    }

    /// One `deliveries` row.
    struct DeliveryRow: Sendable {
        var outcome: String
        var priority: Int
        var requestedPriority: Int
        var downgraded: Bool
        var attempt: Int
        var statusCode: Int?
        var reason: String?
        var requestID: String?
        var uniqueID: String?
        var outboxVersion: Int64
        var coalesced: Int
        var eventIDs: [Int64]
        var latency: Double?
        var ingestToSend: Double?
        var ingestToClaim: Double?
    }

    func deliveries(_ channelID: Int64) async throws -> [DeliveryRow] {
        try await pool.query("""
            SELECT outcome, priority, requested_priority, downgraded, attempt, status_code, reason, apns_request_id,
                   apns_unique_id, outbox_version, coalesced, event_ids, apns_latency_ms, ingest_to_send_ms, ingest_to_claim_ms
            FROM deliveries WHERE channel_id = \(channelID) ORDER BY id
            """).map { row in
            DeliveryRow(
                outcome: try row.decode("outcome"), priority: try row.decode("priority"),
                requestedPriority: try row.decode("requested_priority"), downgraded: try row.decode("downgraded"),
                attempt: try row.decode("attempt"), statusCode: try row.decode("status_code"), reason: try row.decode("reason"),
                requestID: try row.decode("apns_request_id"), uniqueID: try row.decode("apns_unique_id"),
                outboxVersion: try row.decode("outbox_version"), coalesced: try row.decode("coalesced"),
                eventIDs: try row.decode("event_ids"), latency: try row.decode("apns_latency_ms"),
                ingestToSend: try row.decode("ingest_to_send_ms"), ingestToClaim: try row.decode("ingest_to_claim_ms"))
        }
    }

    /// `channels.status`, `last_timestamp` and `last_sent_at`.
    func channel(_ channelID: Int64) async throws -> (status: String, lastTimestamp: Int64, lastSentAt: Date?) {
        let row = try await pool.query("SELECT status, last_timestamp, last_sent_at FROM channels WHERE id = \(channelID)")[0]
        return (try row.decode("status"), try row.decode("last_timestamp"), try row.decode("last_sent_at"))
    }

    /// `apps.paused_reason` and `paused_at`.
    func pause(_ appID: Int64) async throws -> (reason: String?, at: Date?) {
        let row = try await pool.query("SELECT paused_reason, paused_at FROM apps WHERE id = \(appID)")[0]
        return (try row.decode("paused_reason"), try row.decode("paused_at"))
    }

    /// Every budget ledger entry of a channel, oldest first.
    func ledger(_ channelID: Int64) async throws -> [ChannelBudget.Entry] {
        try await pool.query("""
            SELECT at, kind, limit_after, barred_until FROM budget_ledger WHERE channel_id = \(channelID) ORDER BY at, kind
            """).map { row in
            let at: Date = try row.decode("at")
            switch try row.decode("kind", as: String.self) {
            case "priority10": return .priority10(at: at)
            default:
                return .throttled(ChannelBudget.Throttle(
                    at: at, limitAfter: try row.decode("limit_after"), barredUntil: try row.decode("barred_until")))
            }
        }
    }
}
