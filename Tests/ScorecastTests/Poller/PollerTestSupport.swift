import Foundation
import Migrations
import ScorecastLogging
import Postgres
@testable import ServiceBase
import Synchronization
import Testing
import TestSupport

/// A migrated schema of the test's own with helpers to write the rows the poller reads.
struct PollerDatabase: Sendable {
    let pool: PostgresPool
    let configuration: PostgresConfiguration
    static let logger = Logger(label: "poller-test", level: .error)

    static let schemaFiles: [MigrationFile] = {
        (try? SchemaFolder.read(ScorecastProcess.schemaFolder)) ?? []
    }()

    /// A fresh migrated schema.
    static func make(maxConnections: Int = 6) async throws -> PollerDatabase {
        let configuration = try await TestDatabase.shared().makeSchema()
        let pool = PostgresPool(configuration: configuration, maxConnections: maxConnections, logger: logger)
        #expect(!schemaFiles.isEmpty, "Sources/Migrations/Schema/ has migrations")
        try await Migrator(files: schemaFiles, logger: logger).migrate(pool)
        return PollerDatabase(pool: pool, configuration: configuration)
    }

    /// Runs `body` with a fresh database and closes its pool afterwards.
    static func with(_ body: (PollerDatabase) async throws -> Void) async throws {
        let database = try await make()
        do {
            try await body(database)
        } catch {
            await database.pool.close()
            throw error
        }
        await database.pool.close()
    }

    /// Adds an app (no real key: for duties that never reach APNs); returns its id.
    @discardableResult
    func addApp(_ bundleID: String = "com.example.scores", frequentUpdates: Bool = false, budgetPerHour: Int? = nil) async throws -> Int64 {
        let rows = try await pool.query("""
            INSERT INTO apps (bundle_id, environment, team_id, key_id, key_path, frequent_updates, budget_per_hour)
            VALUES (\(bundleID), 'sandbox', 'TEAM123456', 'KEY1234567', '/keys/none.p8', \(frequentUpdates), \(budgetPerHour))
            RETURNING id
            """)
        return try #require(rows.first).decode("id")
    }

    /// Adds a game.
    func addGame(_ id: String, status: String = "live", finishedAt: Date? = nil, state: String = "{}") async throws {
        try await pool.execute("""
            INSERT INTO games (id, league, home_team, away_team, status, finished_at, state)
            VALUES (\(id), 'EPL', 'Arsenal', 'Chelsea', \(status), \(finishedAt), \(state)::jsonb)
            """)
    }

    /// Adds a channel of `appID`, bound to `game` when given; returns its id.
    @discardableResult
    func addChannel(appID: Int64, game: String? = nil, status: String = "active", apnsID: String? = nil) async throws -> Int64 {
        let rows = try await pool.query("""
            INSERT INTO channels (apns_channel_id, app_id, storage_policy, status)
            VALUES (\(apnsID ?? "ch-" + UUID().uuidString), \(appID), 0, \(status))
            RETURNING id
            """)
        let id: Int64 = try #require(rows.first).decode("id")
        if let game { try await pool.execute("INSERT INTO channel_bindings (channel_id, game_id) VALUES (\(id), \(game))") }
        return id
    }

    /// Adds a pending outbox row for `channelID`.
    func addOutbox(channelID: Int64, dueAt: Date, leaseOwner: String? = nil, leaseExpiresAt: Date? = nil) async throws {
        try await pool.execute("""
            INSERT INTO outbox (channel_id, payload, payload_timestamp, priority, event_ids, first_ingested_at, due_at,
                                lease_owner, lease_expires_at)
            VALUES (\(channelID), convert_to('{}', 'UTF8'), 1, 10, '{}', \(dueAt), \(dueAt), \(leaseOwner), \(leaseExpiresAt))
            """)
    }

    /// Writes `deliveries` rows.
    func insert(_ deliveries: [DeliverySpec]) async throws {
        for batch in deliveries.chunked(500) {
            try await pool.execute("""
                INSERT INTO deliveries (channel_id, app_id, event_ids, outbox_version, requested_priority, priority, downgraded,
                                        coalesced, attempt, outcome, status_code, reason, apns_latency_ms, ingest_to_send_ms, sent_at)
                SELECT u.channel_id, u.app_id, '{1}', 1, u.requested, u.priority, u.downgraded, u.coalesced, u.attempt, u.outcome,
                       u.status, u.reason, u.apns, u.ingest, u.sent_at
                FROM unnest(\(batch.map(\.channelID))::bigint[], \(batch.map(\.appID))::bigint[],
                            \(batch.map { $0.requestedPriority })::int2[], \(batch.map { $0.priority })::int2[],
                            \(batch.map(\.downgraded))::bool[], \(batch.map(\.coalesced))::int[], \(batch.map(\.attempt))::int[],
                            \(batch.map(\.outcome))::text[], \(batch.map(\.statusCode))::int[], \(batch.map(\.reason))::text[],
                            \(batch.map(\.apnsLatency))::float8[], \(batch.map(\.ingestLatency))::float8[],
                            \(batch.map(\.sentAt))::timestamptz[])
                    AS u(channel_id, app_id, requested, priority, downgraded, coalesced, attempt, outcome, status, reason,
                         apns, ingest, sent_at)
                """)
        }
    }

    /// Writes `events` rows for `game`.
    func insertEvents(game: String, at times: [(Date, String)]) async throws {
        for (index, (time, outcome)) in times.enumerated() {
            try await pool.execute("""
                INSERT INTO events (feed, feed_event_id, game_id, seq, kind, occurred_at, received_at, outcome, body)
                VALUES ('feed', \(game + "-" + String(index) + "-" + UUID().uuidString), \(game), \(index + 1), 'score', \(time), \(time),
                        \(outcome), '{}'::jsonb)
                """)
        }
    }

    /// One integer from a query.
    func count(_ sql: SQL) async throws -> Int {
        try #require(try await pool.query(sql).first).decode(0, as: Int.self)
    }
}

/// One scripted `deliveries` row.
struct DeliverySpec: Sendable {
    var channelID: Int64
    var appID: Int64
    var sentAt: Date
    var outcome: String = "sent"
    var priority: Int16 = 10
    var requestedPriority: Int16 = 10
    var downgraded = false
    var coalesced: Int32 = 0
    var attempt: Int32 = 1
    var statusCode: Int32? = 200
    var reason: String?
    var apnsLatency: Double? = 3
    var ingestLatency: Double? = 10
}

/// A fixed, minute-aligned-ish test time (2026-03-01 12:30:20 UTC).
let pollerTestNow = Date(timeIntervalSince1970: 1_772_368_220)

extension Array {
    /// The elements in consecutive slices of at most `size`.
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: Swift.max(1, size)).map { self[$0..<Swift.min($0 + Swift.max(1, size), count)] }
    }
}
