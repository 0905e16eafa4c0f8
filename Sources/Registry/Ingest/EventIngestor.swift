import Clocks
import DeliveryEngine
import Foundation
import JSON
import LeasedQueue
import Postgres
import ScorecastCore
import ScorecastLogging
import ServiceBase

/// Stores validated feed events and turns them into outbox rows, in one transaction per request.
///
/// In order, inside the transaction:
/// 1. lock the events' games (`FOR UPDATE`, by id); unknown games are created or refused;
/// 2. insert the events (`ON CONFLICT (feed, feed_event_id) DO NOTHING`: those not inserted are
///    duplicates — a concurrent ingest of the same event waits on the game lock or the unique
///    index and then finds it);
/// 3. fold the new events into the game states (``GameFold``): not newer than the applied
///    `seq` → `stale`, stored but changing nothing;
/// 4. update the games;
/// 5. lock the outbox rows of the active channels bound to games that changed, read those
///    channels and their apps, render and merge (``OutboxPlanner``) and upsert each channel's
///    single row, fenced on the version read, with `NOTIFY scorecast_outbox` in the same
///    statement (Postgres delivers it when the transaction commits). With an ``AlertHandOff``,
///    an alerting row due now that no sender holds is written already leased to it, and handed
///    over in memory once the transaction commits.
///
/// Every step is one statement over arrays (`unnest`), whatever the number of events or
/// channels. When every game is known, steps 1 and 2 go to the server with `BEGIN` as one
/// pipeline, and the stale marks, the games update and step 5's two reads as another: four
/// round trips with the upsert and `COMMIT`. Deadlocks and fence conflicts roll back and retry
/// the whole transaction.
package struct EventIngestor: Sendable {
    /// The LISTEN/NOTIFY channel that wakes the workers.
    package static let notificationChannel = "scorecast_outbox"
    /// The payload of the notification that announces an alerting row (a goal, full time): a
    /// waiting worker claims it at once instead of lingering for a fuller batch. Other
    /// notifications on the channel carry an empty payload.
    package static let alertingNotification = "alerting"
    /// Attempts of the transaction before a deadlock or conflict is reported.
    static let maximumAttempts = 4

    let pool: PostgresPool
    let settings: IngestSettings
    let logger: Logger
    let clock: any ServiceClock
    /// This process's senders, when it has any: goals skip the wait for a claim.
    let handOff: AlertHandOff?
    /// Each app's renderer while its row is unchanged.
    let appRenderers = AppRenderers()

    /// Creates an ingestor; `clock` gives "now" for due times, queue times and the leases of
    /// rows handed to `handOff`.
    package init(
        pool: PostgresPool, settings: IngestSettings, logger: Logger, clock: any ServiceClock = SystemServiceClock(),
        handOff: AlertHandOff? = nil
    ) {
        self.pool = pool
        self.settings = settings
        self.logger = logger.named("ingest")
        self.clock = clock
        self.handOff = handOff
    }

    /// Ingests `events` (validated, ids unique within the request) posted by `feed`.
    ///
    /// - Parameter receivedAt: when the request arrived, if it waited before this call (group
    ///   commit); rows' ingest times, from which ingest-to-send latency is measured, start
    ///   there. By default, now.
    /// - Throws: ``IngestError`` when the request is refused (nothing written), `PostgresError`
    ///   when the database fails.
    package func ingest(_ events: [FeedEvent], feed: String, receivedAt: Date? = nil) async throws -> IngestReport {
        guard !events.isEmpty else { return IngestReport(results: []) }
        // The first run reads the channels' outbox rows without locking them; a run after a
        // collision locks them, so a request whose rows keep changing (a large group whose
        // channels workers keep claiming) still gets through.
        var runs = 0
        let committed = try await ConflictRetry(work: "ingest transaction", attempts: Self.maximumAttempts, logger: logger).run {
            runs += 1
            let locking = runs > 1
            do {
                if let known = try await ingestForKnownGames(events, feed: feed, receivedAt: receivedAt, lockingRows: locking) { return known }
                return try await pool.withTransaction(localSettings: ReusablePlans.settings) { connection in
                    let games = try await lockGames(for: events, feed: feed, on: connection)
                    let storedIDs = try await insertEvents(events, feed: feed, on: connection)
                    return try await ingest(
                        events, feed: feed, receivedAt: receivedAt, games: games, storedIDs: storedIDs, lockingRows: locking, on: connection)
                }
            } catch let error as PostgresError where error.sqlState == PostgresError.SQLState.uniqueViolation {
                // An event or outbox row this transaction looked for and did not find was stored
                // by another meanwhile (its plain insert then fails the key): a collision.
                throw RowsChangedConcurrently()
            }
        }
        handOff?.handOver(committed.handedOver)
        return committed.report
    }

    // MARK: - The transaction

    /// The usual request, every game known: steps 1 and 2 go to the server with `BEGIN` in one
    /// round trip. `nil` when a game is unknown (the events' foreign key refused the insert and
    /// nothing was written): the caller then takes the path that creates or refuses games.
    private func ingestForKnownGames(_ events: [FeedEvent], feed: String, receivedAt: Date?, lockingRows: Bool) async throws -> Committed? {
        let ids = Set(events.map(\.game)).sorted()
        do {
            let opening = [Self.lockGamesStatement(ids), try Self.insertEventsStatement(events, feed: feed)]
            return try await pool.withTransaction(localSettings: ReusablePlans.settings, opening: opening) { connection, opened in
                let games = try Self.lockedGames(opened[0].rows)
                guard games.count == ids.count else { throw UnknownGame() }
                return try await ingest(
                    events, feed: feed, receivedAt: receivedAt, games: games, storedIDs: try Self.storedIDs(opened[1].rows),
                    lockingRows: lockingRows, on: connection)
            }
        } catch let error as PostgresError where error.sqlState == PostgresError.SQLState.foreignKeyViolation && error.statementIndex == 1 {
            return nil
        } catch is UnknownGame {
            return nil
        }
    }

    /// A game of the request has no row (rolled back; the other path creates or refuses it).
    private struct UnknownGame: Error {}

    /// What a transaction wrote: the report, and the rows it leased to ``handOff`` (handed over
    /// only once it committed).
    private struct Committed {
        var report: IngestReport
        var handedOver: [Int64] = []
    }

    /// Steps 3 to 5, once the games are locked and the events stored; `lockingRows`: the
    /// channels' outbox rows are locked as they are read.
    private func ingest(
        _ events: [FeedEvent], feed: String, receivedAt: Date?, games: [String: LockedGame], storedIDs: [String: Int64],
        lockingRows: Bool, on connection: PostgresConnection
    ) async throws -> Committed {
        let now = receivedAt ?? clock.now()
        var fittedIDs: Set<String> = []
        var handedOver: [Int64] = []
        let fold = GameFold(
            events: events, isDuplicate: events.map { storedIDs[$0.id] == nil }, games: games.mapValues(\.state),
            sports: games.mapValues(\.info.sport), notice: settings.notice)

        // Steps 3–5's writes and reads need nothing from each other in Swift: one pipeline,
        // one round trip instead of up to four.
        var statements: [SQL] = []
        let staleIDs = fold.staleIndices.compactMap { storedIDs[events[$0].id] }
        if !staleIDs.isEmpty {
            statements.append("UPDATE events SET outcome = 'stale' WHERE id = ANY(\(staleIDs))")
        }
        if fold.states.isEmpty {
            if !statements.isEmpty { _ = try await connection.pipeline(statements) }
        } else {
            statements.append(try updateGames(fold.states, arrivedAt: now))
            let changed = fold.states.keys.sorted()
            let leasedAt = clock.now()
            statements.append(Self.readPendingOutboxRows(of: changed, leasesJudgedAt: leasedAt, locking: lockingRows))
            statements.append(Self.readChannels(of: changed))
            let results = try await connection.pipeline(statements)
            let (targets, leasable, revisions) = try channelTargets(
                pendingRows: results[results.count - 2].rows, channelRows: results[results.count - 1].rows)
            var eventIDs: [Int: Int64] = [:]
            for (index, event) in events.enumerated() { eventIDs[index] = storedIDs[event.id] }
            let writes: [OutboxWrite]
            var contentStates = ContentStateMemo()
            do {
                writes = try OutboxPlanner(shaping: settings.shaping).plan(
                    fold: fold, games: games.mapValues(\.info), targets: targets, eventIDs: eventIDs, now: now,
                    contentStates: &contentStates)
            } catch {
                throw IngestError.unrenderable(error)
            }
            for (eventID, steps) in contentStates.fitted {
                logger.warning("content-state cut to fit 4 KB", [
                    "feed": feed, "event": eventID, "steps": steps.map(\.rawValue).joined(separator: ",")])
            }
            fittedIDs = Set(contentStates.fitted.map(\.eventID))
            if !writes.isEmpty {
                let lease = handOff.map { handOff in
                    OutboxLease(
                        owner: handOff.owner, expiresAt: leasedAt.adding(handOff.lease),
                        channelIDs: AlertHandOff.rowsToLease(writes, leasable: leasable, room: handOff.room(), now: leasedAt))
                }
                try await upsertOutbox(writes, revisions: revisions, leasing: lease, on: connection)
                handedOver = lease?.channelIDs ?? []
            }
            let alertsDropped = writes.reduce(0) { $0 + $1.entry.alertsDropped }
            if alertsDropped > 0 {
                logger.warning("alert queues were full: the oldest alerts were dropped", [
                    "feed": feed, "alerts_dropped": "\(alertsDropped)", "limit": "\(OutboxEntry.maximumAlerts)"])
            }
            logger.debug("ingested", [
                "feed": feed, "events": "\(events.count)", "games": "\(fold.states.count)", "outbox_rows": "\(writes.count)",
            ])
        }
        let report = IngestReport(results: events.indices.map {
            var result = IngestReport.Result(id: events[$0].id, outcome: fold.outcomes[$0])
            result.fittedToSize = fittedIDs.contains(events[$0].id)
            return result
        })
        return Committed(report: report, handedOver: handedOver)
    }

    /// A locked game: its state and what rendering needs.
    private struct LockedGame {
        var state: GameState
        var info: GameInfo
    }

    private static let gameColumns = "id, sport, home_team, away_team, status, state, applied_seq"

    private static func lockGamesStatement(_ ids: [String]) -> SQL {
        "SELECT \(unsafeSQL: gameColumns) FROM games WHERE id = ANY(\(ids)) ORDER BY id FOR UPDATE"
    }

    private func lockGames(for events: [FeedEvent], feed: String, on connection: PostgresConnection) async throws -> [String: LockedGame] {
        let ids = Set(events.map(\.game)).sorted()
        var rows = try await connection.query(Self.lockGamesStatement(ids))
        let found = try Set(rows.map { try $0.decode("id", as: String.self) })
        let missing = ids.filter { !found.contains($0) }
        if !missing.isEmpty {
            guard settings.createUnknownGames else {
                let unknown = Set(missing)
                throw IngestError.unknownGames(events.indices.filter { unknown.contains(events[$0].game) })
            }
            // Created at the service clock's time: the quota and the abandoned-games duty count
            // from it.
            let now = clock.now()
            try await checkGameQuota(newGames: missing, events: events, feed: feed, at: now, on: connection)
            try await connection.execute("""
                INSERT INTO games (id, created_by_feed, created_at) SELECT unnest(\(missing)), \(feed), \(now) ON CONFLICT (id) DO NOTHING
                """)
            rows += try await connection.query(Self.lockGamesStatement(missing))
        }
        return try Self.lockedGames(rows)
    }

    /// The games locked by ``lockGamesStatement(_:)``, by id.
    private static func lockedGames(_ rows: [PostgresRow]) throws -> [String: LockedGame] {
        var games: [String: LockedGame] = [:]
        for row in rows {
            let id: String = try row.decode("id")
            games[id] = LockedGame(
                state: try Self.state(of: row),
                info: GameInfo(sport: try row.decode("sport"), homeName: try row.decode("home_team"), awayName: try row.decode("away_team")))
        }
        return games
    }

    /// Refuses the request when creating `newGames` at `now` would take `feed` past its quota for
    /// the hour before. A transaction-scoped advisory lock per feed makes concurrent requests
    /// count in turn.
    private func checkGameQuota(
        newGames: [String], events: [FeedEvent], feed: String, at now: Date, on connection: PostgresConnection
    ) async throws {
        let limit = settings.gamesPerFeedPerHour
        try await connection.execute("SELECT pg_advisory_xact_lock(hashtext(\("scorecast-feed-games:" + feed)))")
        let rows = try await connection.query("""
            SELECT count(*) AS n FROM games WHERE created_by_feed = \(feed) AND created_at > \(now.addingTimeInterval(-3_600))
            """)
        let remaining = max(0, limit - (try rows[0].decode("n", as: Int.self)))
        guard newGames.count > remaining else { return }
        let unknown = Set(newGames)
        throw IngestError.gameQuotaExceeded(
            indices: events.indices.filter { unknown.contains(events[$0].game) }, new: newGames.count, remaining: remaining, limit: limit)
    }

    /// The folded state of a `games` row; a game without events (`state = {}`) starts from
    /// its `status` column. `applied_seq` is the column's.
    static func state(of row: PostgresRow) throws -> GameState {
        let json = try JSONParser().parse(try row.decode("state", as: PostgresJSON.self).bytes)
        var state: GameState
        if json.objectValue?.isEmpty ?? false {
            state = .initial
            state.status = GameStatus(rawValue: try row.decode("status", as: String.self)) ?? .scheduled
        } else {
            state = try GameState(jsonValue: json)
        }
        state.appliedSeq = try row.decode("applied_seq", as: Int.self)
        return state
    }

    /// Inserts every event as `accepted` (stale ones are corrected after folding); returns the
    /// new `events.id` by feed event id. Duplicates are absent from the result.
    private func insertEvents(_ events: [FeedEvent], feed: String, on connection: PostgresConnection) async throws -> [String: Int64] {
        try Self.storedIDs(try await connection.query(try Self.insertEventsStatement(events, feed: feed)))
    }

    /// The insert of ``insertEvents(_:feed:on:)``: events already stored are left out by a look
    /// at the key, not by `ON CONFLICT`, whose speculative insertion logs a confirmation record
    /// per row. The same event stored by another ingest meanwhile fails the key: a collision,
    /// retried, which then finds it stored.
    private static func insertEventsStatement(_ events: [FeedEvent], feed: String) throws -> SQL {
        let bodies = try events.map { try $0.jsonValue.encodedString() }
        return """
            INSERT INTO events (feed, feed_event_id, game_id, seq, kind, occurred_at, outcome, body)
            SELECT \(feed), u.id, u.game, u.seq, u.kind, u.at, 'accepted', u.body::jsonb
            FROM unnest(\(events.map(\.id)), \(events.map(\.game)), \(events.map { Int64($0.seq) }),
                        \(events.map(\.kind.rawValue)), \(events.map(\.occurredAt)), \(bodies))
                 WITH ORDINALITY AS u(id, game, seq, kind, at, body, n)
            WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.feed = \(feed) AND e.feed_event_id = u.id)
            ORDER BY u.n
            RETURNING id, feed_event_id
            """
    }

    /// `events.id` by feed event id, from the rows ``insertEventsStatement(_:feed:)`` returned.
    private static func storedIDs(_ rows: [PostgresRow]) throws -> [String: Int64] {
        var ids: [String: Int64] = [:]
        for row in rows { ids[try row.decode("feed_event_id")] = try row.decode("id", as: Int64.self) }
        return ids
    }

    /// The statement that writes the folded states to their games, whose events arrived at
    /// `arrivedAt` (what a feed-created game's silence is measured from, `AbandonedGamesDuty`;
    /// and, on the service clock, when a game that is over finished: the retirement of its
    /// channels counts from it). `updated_at` is an audit column, on the database's clock.
    private func updateGames(_ states: [String: GameState], arrivedAt: Date) throws -> SQL {
        let ids = states.keys.sorted()
        let values = ids.compactMap { states[$0] }
        let documents = try values.map { try $0.jsonValue.encodedString() }
        return """
            UPDATE games g SET
                state = u.state::jsonb, applied_seq = u.seq, status = u.status, last_event_at = u.at, last_arrival_at = \(arrivedAt),
                finished_at = CASE WHEN u.over THEN COALESCE(g.finished_at, \(arrivedAt)) END,
                updated_at = now()
            FROM unnest(\(ids), \(documents), \(values.map { Int64($0.appliedSeq) }),
                        \(values.map(\.status.rawValue)), \(values.map(\.updatedAt)), \(values.map(\.status.isOver)))
                 AS u(id, state, seq, status, at, over)
            WHERE g.id = u.id
            """
    }

    /// Reads the outbox rows of the active channels bound to `games`, each with its revision
    /// (Postgres' `xmin`, which every write of the row changes: a claim, a completion, another
    /// ingest). Unless `locking`, the rows are not locked (a lock logs a record per row): the
    /// write is fenced on the revision read, so a row written meanwhile fails it and the
    /// transaction is retried, locking them, on what they hold then. It runs before
    /// `readChannels`: a worker that finished a send before it has committed both its outbox
    /// delete and the channel's new last_timestamp. A lease counts until its expiry on the
    /// service clock (`now`), the clock the workers lease by, not Postgres' `now()`, by the
    /// queue's one rule (``LeasedQueue``).
    private static func readPendingOutboxRows(of games: [String], leasesJudgedAt now: Date, locking: Bool) -> SQL {
        let read: SQL = """
        SELECT o.channel_id, o.version, o.xmin::text AS revision, o.payload, o.priority, o.alerts, o.event_ids,
               o.first_ingested_at, o.coalesced, o.due_at, o.attempts,
               (\(LeasedQueue.outbox.isHeld(at: now)) AND COALESCE(o.claimed_version = o.version, true)) AS leased,
               \(LeasedQueue.outbox.isFree(at: now)) AS lease_free
        FROM outbox o
        WHERE o.channel_id IN (
            SELECT b.channel_id FROM channel_bindings b JOIN channels c ON c.id = b.channel_id
            WHERE b.game_id = ANY(\(games)) AND c.status = 'active')
        """
        return locking ? read + "\nORDER BY o.channel_id\nFOR UPDATE OF o" : read
    }

    /// The active channels bound to `games`, with their apps.
    private static func readChannels(of games: [String]) -> SQL {
        """
        SELECT t.game_id, t.channel_id, t.last_timestamp, t.last_sent_at, t.tier, a.*
        FROM (
            SELECT b.game_id, c.id AS channel_id, c.last_timestamp, c.last_sent_at, c.app_id, b.tier
            FROM channel_bindings b JOIN channels c ON c.id = b.channel_id
            WHERE b.game_id = ANY(\(games)) AND c.status = 'active'
        ) t
        CROSS JOIN LATERAL (SELECT \(unsafeSQL: AppRecord.columns) FROM apps WHERE apps.id = t.app_id) a
        """
    }

    /// The channel targets from the locked outbox rows and the channels read, with their apps'
    /// renderers. Channels of an app whose stored content-state mapping is invalid are skipped
    /// (logged): one misconfigured app must not stop the feed for every other. With them, the
    /// channels whose row ingest may lease to the hand-off: no sender holds it (none has a
    /// lease that has not run out) and the app is not paused.
    private func channelTargets(
        pendingRows: [PostgresRow], channelRows rows: [PostgresRow]
    ) throws -> (targets: [ChannelTarget], leasable: Set<Int64>, revisions: [Int64: String]) {
        var pending: [Int64: PendingOutboxRow] = [:]
        var revisions: [Int64: String] = [:]
        var held: Set<Int64> = []
        for row in pendingRows {
            let channelID: Int64 = try row.decode("channel_id")
            pending[channelID] = try PendingOutboxRow(row: row)
            revisions[channelID] = try row.decode("revision")
            if try !row.decode("lease_free", as: Bool.self) { held.insert(channelID) }
        }
        var leasable: Set<Int64> = []
        var renderers: [Int64: LiveActivityRenderer?] = [:]
        var targets: [ChannelTarget] = []
        for row in rows {
            let app = try AppRecord(row: row)
            if renderers[app.id] == nil {
                let staleness = settings.staleness
                switch appRenderers.renderer(for: app, build: { app throws(ContentStateMappingError) in
                    LiveActivityRenderer(settings: try app.renderSettings(staleness: staleness))
                }) {
                case .success(let renderer):
                    renderers[app.id] = renderer
                case .failure(let error):
                    logger.error("app has an invalid content-state mapping: its channels get no updates until it is fixed", [
                        "app": app.bundleID, "environment": app.environment.rawValue, "problem": error.description,
                    ])
                    renderers[app.id] = .some(nil)
                }
            }
            guard var renderer = renderers[app.id] ?? nil else { continue }
            // A light channel (frequent updates off) spends priority 10 on kick-off, goals and full time only.
            if try row.decode("tier", as: String.self) == "light" { renderer.settings.priority = .lightTier }
            let channelID: Int64 = try row.decode("channel_id")
            if app.pausedReason == nil && !held.contains(channelID) { leasable.insert(channelID) }
            targets.append(ChannelTarget(
                channelID: channelID, gameID: try row.decode("game_id"), lastTimestamp: try row.decode("last_timestamp"),
                lastSentAt: try row.decode("last_sent_at", as: Date?.self), renderer: renderer, pending: pending[channelID]))
        }
        return (targets, leasable, revisions)
    }

    /// The lease ingest writes on the rows it hands over: `owner` until `expiresAt`, on
    /// `channelIDs` (at the version written, as a claim records it).
    private struct OutboxLease {
        var owner: String
        var expiresAt: Date
        var channelIDs: [Int64]
    }

    /// Writes each channel's row, fenced on the version and the revision read (`revisions`, by
    /// channel); the rows of `lease`, if any, are written leased (any other row keeps the lease
    /// it has: a sender's in-flight claim is not taken). A row read as absent (version 1 to
    /// write) is inserted, any other updated; not `INSERT … ON CONFLICT`, whose speculative
    /// insertion logs a confirmation record for every new row.
    private func upsertOutbox(
        _ writes: [OutboxWrite], revisions: [Int64: String], leasing lease: OutboxLease?, on connection: PostgresConnection
    ) async throws {
        let entries = writes.map(\.entry)
        let leased = Set(lease?.channelIDs ?? [])
        let owners = writes.map { leased.contains($0.channelID) ? lease?.owner : nil }
        let expiries = writes.map { leased.contains($0.channelID) ? lease?.expiresAt : nil }
        let claimedVersions = writes.map { leased.contains($0.channelID) ? $0.version : nil }
        let payloads = entries.map { String(decoding: $0.body, as: UTF8.self) }
        let eventIDs = entries.map { "{" + $0.eventIDs.joined(separator: ",") + "}" }
        let alerts = entries.map { QueuedAlert.encodedQueue($0.alerts) }
        // pg_notify runs once per written row; Postgres folds identical notifications of one
        // transaction into one, delivered at commit (so at most two: alerting and routine).
        // Saves a round trip.
        let statement: SQL = """
            WITH u AS MATERIALIZED (
                SELECT u.channel_id, u.version, convert_to(u.payload, 'UTF8') AS payload, u.payload_timestamp, u.priority,
                       u.alerting, u.alerts::jsonb AS alerts, u.event_ids::bigint[] AS event_ids, u.first_ingested_at, u.coalesced,
                       u.due_at, u.attempts, u.lease_owner, u.lease_expires_at, u.claimed_version, u.revision::xid AS revision
                FROM unnest(\(writes.map(\.channelID)), \(writes.map(\.version)), \(payloads),
                            \(entries.map { Int64($0.payload.timestamp) }), \(entries.map { Int16($0.priority.rawValue) }),
                            \(entries.map(\.isAlerting)), \(alerts), \(eventIDs), \(entries.map(\.enqueuedAt)),
                            \(entries.map { Int32(clamping: $0.coalesced) }), \(entries.map(\.claimableAt)),
                            \(entries.map { Int32(clamping: $0.attempts) }), \(owners), \(expiries), \(claimedVersions),
                            \(writes.map { revisions[$0.channelID] }))
                     AS u(channel_id, version, payload, payload_timestamp, priority, alerting, alerts, event_ids,
                          first_ingested_at, coalesced, due_at, attempts, lease_owner, lease_expires_at, claimed_version, revision)
            ), updated AS (
                UPDATE outbox o SET
                    version = u.version, payload = u.payload, payload_timestamp = u.payload_timestamp,
                    priority = u.priority, alerting = u.alerting, alerts = u.alerts, event_ids = u.event_ids,
                    first_ingested_at = u.first_ingested_at, coalesced = u.coalesced,
                    due_at = u.due_at, attempts = u.attempts, not_before = NULL, updated_at = now(),
                    -- A handed-over row takes ingest's lease; any other keeps its own.
                    lease_owner = COALESCE(u.lease_owner, o.lease_owner),
                    lease_expires_at = COALESCE(u.lease_expires_at, o.lease_expires_at),
                    claimed_version = COALESCE(u.claimed_version, o.claimed_version)
                FROM u
                WHERE o.channel_id = u.channel_id AND u.version > 1 AND o.version = u.version - 1 AND o.xmin = u.revision
                RETURNING o.channel_id, o.alerting
            ), inserted AS (
                INSERT INTO outbox (channel_id, version, payload, payload_timestamp, priority, alerting, alerts, event_ids,
                                    first_ingested_at, coalesced, due_at, attempts, lease_owner, lease_expires_at, claimed_version)
                SELECT channel_id, version, payload, payload_timestamp, priority, alerting, alerts, event_ids,
                       first_ingested_at, coalesced, due_at, attempts, lease_owner, lease_expires_at, claimed_version
                FROM u WHERE u.version = 1
                RETURNING channel_id, alerting
            ), written AS (
                SELECT channel_id, alerting FROM updated UNION ALL SELECT channel_id, alerting FROM inserted
            )
            SELECT channel_id,
                   pg_notify(\(Self.notificationChannel), CASE WHEN alerting THEN \(Self.alertingNotification) ELSE '' END)
            FROM written
            """
        let rows = try await connection.query(statement)
        // A row written since it was read (a claim, a completion, another ingest of a channel bound to two games).
        guard rows.count == writes.count else { throw RowsChangedConcurrently() }
    }
}
