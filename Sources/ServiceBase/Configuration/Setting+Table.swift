import ScorecastCore

/// The table of every setting, in documentation order. Add a setting here and read it in
/// `Configuration.load` (or the settings struct that owns it) through `EnvironmentReader`.
extension Setting {
    // Database and state.
    package static let databaseURL = Setting("SCORECAST_DATABASE_URL", .secret, "Postgres URL or conninfo. Unset: a private Postgres cluster is started in the state folder.")
    package static let stateDirectory = Setting("SCORECAST_STATE_DIR", .text(default: ".scorecast"), "State folder (embedded Postgres, simulator certificate and keys), relative to the working directory.")
    package static let autoMigrate = Setting("SCORECAST_AUTO_MIGRATE", .boolean(default: true), "Apply pending schema migrations when `serve` starts.")
    package static let schemaDirectory = Setting("SCORECAST_SCHEMA_DIR", .text(default: nil), "A folder of .sql migrations to apply instead of the ones built into the binary (to try a new migration without rebuilding).")
    package static let databasePoolSize = Setting("SCORECAST_DATABASE_POOL_SIZE", .integer(default: 10, range: 1...200), "Database connections per process.")
    package static let databaseConnectTimeout = Setting("SCORECAST_DATABASE_CONNECT_TIMEOUT_SECONDS", .integer(default: 5, range: 1...300), "Connect timeout.")
    package static let databaseStatementTimeout = Setting("SCORECAST_DATABASE_STATEMENT_TIMEOUT_MS", .integer(default: 30_000, range: 100...3_600_000), "Statement timeout, for the long work behind the API (workers, poller, CLI); also its longest wait for a pooled connection, and the client gives up on an answer 1 s after it (a stalled server never answers).")
    package static let databaseRequestTimeout = Setting("SCORECAST_DATABASE_REQUEST_TIMEOUT_MS", .integer(default: 2_000, range: 100...600_000), "How long one HTTP request may wait on the database in all (a pooled connection and the answers); past it the request gets 503 problem+json with Retry-After, so a stalled database fails requests fast instead of holding them for the statement timeout.")
    package static let databasePooler = Setting("SCORECAST_DATABASE_POOLER", .choice(default: "none", options: ["none", "transaction"]), "What the main URL goes through. `transaction`: a pooler in transaction mode (PgBouncer `pool_mode = transaction`): statements run unprepared and no session settings are sent at connect (set them on the role, see Behind a connection pooler).")
    package static let databaseDirectURL = Setting("SCORECAST_DATABASE_DIRECT_URL", .secret, "Postgres URL or conninfo for the work that needs a session of its own (LISTEN, the poller's leader lock, migrations), past the pooler. Unset: SCORECAST_DATABASE_URL; required with SCORECAST_DATABASE_POOLER=transaction.")
    package static let embeddedPostgresSettings = Setting("SCORECAST_EMBEDDED_POSTGRES_SETTINGS", .text(default: nil), "Extra postgresql.conf settings for the embedded cluster, `name=value` items separated by `;` (e.g. `commit_delay=0;shared_buffers=1GB`), written after scorecast's own so they win (see Embedded Postgres settings). The socket, port, addresses and files are scorecast's and refused.")
    package static let embeddedPostgresRecoverySeconds = Setting("SCORECAST_EMBEDDED_POSTGRES_RECOVERY_SECONDS", .integer(default: 60, range: 1...3_600), "How long `serve` keeps restarting its embedded Postgres (when its postmaster exits, is killed or crashes on a full disk; each attempt logged with the cause) before `/healthz` answers 503, so that the process's supervisor restarts it. Attempts go on meanwhile.")

    // HTTP API.
    package static let httpHost = Setting("SCORECAST_HTTP_HOST", .text(default: "127.0.0.1"), "Address the HTTP API listens on.")
    package static let httpPort = Setting("SCORECAST_HTTP_PORT", .integer(default: 8080, range: 0...65535), "HTTP port (0 picks a free one).")
    package static let httpMaxBodyBytes = Setting("SCORECAST_HTTP_MAX_BODY_BYTES", .integer(default: 1_048_576, range: 1_024...67_108_864), "Largest request body; larger ones get 413.")
    package static let httpReadTimeout = Setting("SCORECAST_HTTP_READ_TIMEOUT_SECONDS", .integer(default: 30, range: 1...3_600), "Idle connections are closed after this.")
    package static let httpThreads = Setting("SCORECAST_HTTP_THREADS", .integer(default: 4, range: 1...256), "HTTP server threads.")
    package static let httpMaxConnections = Setting("SCORECAST_HTTP_MAX_CONNECTIONS", .integer(default: 1_000, range: 1...100_000), "Most HTTP connections open at once; more are closed on arrival (keep below `ulimit -n`).")
    package static let httpMaxConnectionsPerAddress = Setting("SCORECAST_HTTP_MAX_CONNECTIONS_PER_ADDRESS", .integer(default: 100, range: 0...100_000), "Most HTTP connections from one client address (0: no cap), so that one client cannot take them all.")
    package static let httpHeaderTimeoutSeconds = Setting("SCORECAST_HTTP_HEADER_TIMEOUT_SECONDS", .integer(default: 10, range: 1...600), "A request's headers must arrive in full within this of the connection opening (or its previous response); trickling bytes does not extend it.")
    package static let httpBodyTimeoutSeconds = Setting("SCORECAST_HTTP_BODY_TIMEOUT_SECONDS", .integer(default: 60, range: 1...3_600), "A request's body must arrive in full within this of its headers.")
    package static let httpMinBodyBytesPerSecond = Setting("SCORECAST_HTTP_MIN_BODY_BYTES_PER_SECOND", .integer(default: 1_024, range: 0...100_000_000), "Slowest average rate of a request body, counted from 5 s after its headers; a slower one is answered 408 problem+json and its connection closed (0: no minimum).")
    package static let opsToken = Setting("SCORECAST_OPS_TOKEN", .secret, "Operator token (16+ characters) for /metrics, /v1/stats*, the statistics routes and /dashboard: `Authorization: Bearer …`, or the dashboard's login form. Unset: those routes are open, and `serve` refuses a non-loopback SCORECAST_HTTP_HOST unless SCORECAST_OPS_PUBLIC=true.")
    package static let secretsKey = Setting("SCORECAST_SECRETS_KEY", .secret, "Key that encrypts feed signing secrets in the database (AES-256-GCM): 64 hex characters (`openssl rand -hex 32`); previous keys after it, comma-separated, still open what they sealed and `serve` seals it again with the first. Unset (and no SCORECAST_SECRETS_KEY_FILE): signing secrets are stored in clear, and `serve` warns.")
    package static let secretsKeyFile = Setting("SCORECAST_SECRETS_KEY_FILE", .text(default: nil), "A file holding SCORECAST_SECRETS_KEY instead: one key per line, the current one first, previous ones after it (`#` lines skipped). Not both.")
    package static let opsPublic = Setting("SCORECAST_OPS_PUBLIC", .boolean(default: false), "Serve the operator routes without a token on a non-loopback address, on purpose.")
    package static let opsPort = Setting("SCORECAST_OPS_PORT", .integer(default: 8081, range: 0...65535), "Port of the ops listener (/healthz, /readyz, /metrics) that a `serve` without the api role opens on SCORECAST_HTTP_HOST (0 picks a free one); with the api role they are served on SCORECAST_HTTP_PORT.")
    package static let feedAPIKey = Setting("SCORECAST_API_KEY", .secret, "The feed key `scorecast events send` posts with when `--key` is not given (as `scorecast keys create` prints it). Only that command reads it.")
    package static let feedSigningSecret = Setting("SCORECAST_SIGNING_SECRET", .secret, "The signing secret `scorecast events send` signs with when `--signing-secret` is not given, for keys made with `--hmac`. Only that command reads it.")
    package static let httpMaxHeaderBytes = Setting("SCORECAST_HTTP_MAX_HEADER_BYTES", .integer(default: 32_768, range: 1_024...1_048_576), "Largest header block (names and values); larger ones get 431 problem+json.")

    // Logs and roles.
    package static let logLevel = Setting("SCORECAST_LOG_LEVEL", .choice(default: "info", options: ["trace", "debug", "info", "notice", "warning", "error", "critical"]), "Least severity logged.")
    package static let logFormat = Setting("SCORECAST_LOG_FORMAT", .choice(default: "text", options: ["text", "json"]), "text, or json for one JSON object per line.")
    package static let roles = Setting("SCORECAST_ROLES", .list(default: ["api", "worker", "poller"], options: ["api", "worker", "poller"]), "Roles `serve` runs (also `serve --roles`).")

    // Workers.
    package static let workers = Setting("SCORECAST_WORKERS", .integer(default: 2, range: 1...256), "Concurrent send workers per process (each claims a batch, sends it concurrently, records it while claiming the next).")
    package static let claimBatch = Setting("SCORECAST_CLAIM_BATCH", .integer(default: 256, range: 1...1_000), "Outbox rows a worker claims at once.")
    package static let leaseSeconds = Setting("SCORECAST_LEASE_SECONDS", .integer(default: 10, range: 2...3_600), "Lease on claimed outbox rows; a send that lasts longer extends it (heartbeat every third of it); a crashed worker's rows are sent again once it expires.")
    package static let pollIntervalMilliseconds = Setting("SCORECAST_POLL_INTERVAL_MS", .integer(default: 10_000, range: 10...60_000), "Idle workers look at the outbox's due times this often when no NOTIFY arrives and nothing falls due sooner: the safety net for a lost notification (an idle worker otherwise sleeps until a NOTIFY or the next due time).")
    package static let claimLingerMilliseconds = Setting("SCORECAST_CLAIM_LINGER_MS", .integer(default: 40, range: 0...1_000), "After a claim that did not fill a batch, a worker waits this long before claiming again, so claims are fewer and larger under load; an alerting update (a goal) announced meanwhile ends the wait.")
    package static let alertFastLane = Setting("SCORECAST_ALERT_FAST_LANE", .boolean(default: true), "Let an alerting update (a goal) end a worker's claim linger, so it is claimed at once; false only to measure without it.")
    package static let alertHandOff = Setting("SCORECAST_ALERT_HANDOFF", .boolean(default: false), "In a process that both ingests and sends (roles api and worker), lease an alerting update (a goal) due at once to its own workers inside the ingest transaction and hand it over in memory, skipping the wait for a claim; the outbox row stays the durable record, taken over by any worker if the process dies. Off by default: on 2 cores it made goals no faster (docs/performance.md).")
    package static let routineIntervalMilliseconds = Setting("SCORECAST_ROUTINE_INTERVAL_MS", .integer(default: 10_000, range: 0...3_600_000), "Least spacing of routine updates to one channel that carry no notable play (stats, refreshes); notable plays go at once.")
    package static let shutdownGraceSeconds = Setting("SCORECAST_SHUTDOWN_GRACE_SECONDS", .integer(default: 10, range: 1...600), "How long in-flight work may take to finish on SIGTERM.")

    // APNs.
    package static let apnsSendHost = Setting("SCORECAST_APNS_SEND_HOST", .text(default: nil), "Broadcast/push host, e.g. api.push.apple.com. Unset (with the management host): the built-in simulator.")
    package static let apnsSendPort = Setting("SCORECAST_APNS_SEND_PORT", .integer(default: 443, range: 1...65535), "Port of the send host.")
    package static let apnsManagementHost = Setting("SCORECAST_APNS_MANAGEMENT_HOST", .text(default: nil), "Channel-management host, e.g. api-manage-broadcast.push.apple.com.")
    package static let apnsManagementPort = Setting("SCORECAST_APNS_MANAGEMENT_PORT", .integer(default: 2196, range: 1...65535), "Port of the management host (2195 sandbox, 2196 production).")
    package static let apnsCAFile = Setting("SCORECAST_APNS_CA_FILE", .text(default: nil), "Extra CA certificate file (for a private APNs stand-in).")
    package static let apnsConnections = Setting("SCORECAST_APNS_CONNECTIONS", .integer(default: 2, range: 1...32), "HTTP/2 connections per APNs host.")
    package static let apnsTimeoutMilliseconds = Setting("SCORECAST_APNS_TIMEOUT_MS", .integer(default: 10_000, range: 100...120_000), "Deadline of every APNs request.")
    package static let apnsProxy = Setting("SCORECAST_APNS_PROXY", .secret, "Proxy for Apple's hosts, e.g. http://user:password@proxy.internal:3128 (credentials never logged). Unset: the standard HTTPS_PROXY / NO_PROXY apply. The built-in simulator is always reached directly.")
    package static let apnsTokenRefreshMinutes = Setting("SCORECAST_APNS_TOKEN_REFRESH_MINUTES", .integer(default: 40, range: 20...59), "Provider token age at which it is renewed.")

    // Budgets and limits.
    package static let budgetStandardPerHour = Setting("SCORECAST_BUDGET_STANDARD_PER_HOUR", .integer(default: 12, range: 0...10_000), "Priority-10 sends per channel per hour, standard apps (Apple publishes no number).")
    package static let budgetFrequentPerHour = Setting("SCORECAST_BUDGET_FREQUENT_PER_HOUR", .integer(default: 60, range: 0...10_000), "The same for apps with frequent updates.")
    package static let budgetFinalReserve = Setting("SCORECAST_BUDGET_FINAL_RESERVE", .integer(default: 1, range: 0...10), "Priority-10 sends per channel kept for the final whistle: other alerts go at priority 5 once only these are left in the rolling hour.")
    package static let channelLimit = Setting("SCORECAST_CHANNEL_LIMIT", .integer(default: 10_000, range: 1...10_000), "Channels per app and environment (Apple's limit is 10,000); creating warns from 80 % of it and is refused at it.")
    package static let autoChannelWindowHours = Setting("SCORECAST_AUTO_CHANNEL_WINDOW_HOURS", .integer(default: 24, range: 1...720), "Automatic channels only for games that are live or start within this many hours of now (before or after).")
    package static let feedGamesPerHour = Setting("SCORECAST_FEED_GAMES_PER_HOUR", .integer(default: 200, range: 0...1_000_000), "Games one feed key may create per hour with events for unknown games; a request over it gets 429 and stores nothing.")
    package static let feedGameTimeoutHours = Setting("SCORECAST_FEED_GAME_TIMEOUT_HOURS", .integer(default: 12, range: 1...720), "A game a feed created to which no event has arrived for this long is cancelled, and its channels retired. Counted from arrival, not from the events' occurredAt: a replay or backfill of old events keeps its game.")

    // Delivery guarantee: retries.
    package static let retryMaxAttempts = Setting("SCORECAST_RETRY_MAX_ATTEMPTS", .integer(default: 12, range: 1...1_000), "Attempts of one update before it is given up (recorded as failed, logged); the channel's newest state stays pending and goes when APNs answers.")
    package static let retryBaseMilliseconds = Setting("SCORECAST_RETRY_BASE_MS", .integer(default: 500, range: 1...60_000), "Backoff bound of the first retry; it doubles per attempt, with full jitter. At most SCORECAST_RETRY_MAX_MS.")
    package static let retryMaxMilliseconds = Setting("SCORECAST_RETRY_MAX_MS", .integer(default: 300_000, range: 10...3_600_000), "Largest backoff bound (also the retry interval of an update given up).")
    package static let retryAfterMaxSeconds = Setting("SCORECAST_RETRY_AFTER_MAX_SECONDS", .integer(default: 60, range: 0...3_600), "Longest APNs Retry-After honoured; after a 429 it only bars priority 10 (state keeps flowing at 5), and never freezes a channel longer.")

    // Ingest.
    package static let ingestMaxBatch = Setting("SCORECAST_INGEST_MAX_BATCH", .integer(default: 500, range: 1...10_000), "Most events in one POST /v1/events.")
    package static let ingestTransactions = Setting("SCORECAST_INGEST_TRANSACTIONS", .integer(default: 2, range: 1...64), "Ingest transactions at once; requests arriving while all are busy share the next one (group commit, up to SCORECAST_INGEST_MAX_BATCH events).")
    package static let unknownGames = Setting("SCORECAST_UNKNOWN_GAMES", .choice(default: "create", options: ["create", "refuse"]), "create: events for unknown games create them; refuse: 422.")
    package static let signatureToleranceSeconds = Setting("SCORECAST_SIGNATURE_TOLERANCE_SECONDS", .integer(default: 300, range: 1...86_400), "Accepted clock skew of signed ingest requests.")
    package static let statisticsIntervalSeconds = Setting("SCORECAST_STATS_INTERVAL_SECONDS", .integer(default: Int(NoticePolicy.defaultStatisticsInterval), range: 0...3_600), "Statistics alone (a `stats` event's `extra`: possession, shots, corners) reach the phones at most this often, with the next event once it has passed since the last update; plays, scores and corrections go at once. 60 s is the shortest whole minute that keeps a real-density football match (about 2,800 feed events) under one routine push per channel a minute (30 s does not); 0 sends every change.")
    package static let staleSeconds = Setting("SCORECAST_STALE_SECONDS", .text(default: "900"), "Live Activity stale-date after the event: seconds (1–86400), and/or sport=seconds pairs (900,basketball=300).")

    // Housekeeping.
    package static let retentionDays = Setting("SCORECAST_RETENTION_DAYS", .integer(default: 14, range: 1...3_650), "Deliveries and events older than this are pruned.")
    package static let retireGraceMinutes = Setting("SCORECAST_RETIRE_GRACE_MINUTES", .integer(default: 240, range: 0...10_080), "Channels of finished games are deleted this long after the final event.")
    package static let reconcileFix = Setting("SCORECAST_RECONCILE_FIX", .boolean(default: false), "Let the poller fix what reconciliation finds (else it only reports).")

    // The poller's intervals.
    package static let pollerLeaderCheckMilliseconds = Setting("SCORECAST_POLLER_LEADER_CHECK_MS", .integer(default: 2_000, range: 50...60_000), "Poller instances contend for the lead (and the leader checks its lock) this often; a dead leader is replaced within about this long.")
    package static let pollerStatsSeconds = Setting("SCORECAST_POLLER_STATS_SECONDS", .integer(default: 10, range: 1...3_600), "Per-minute statistics roll-ups run this often.")
    package static let pollerRescueSeconds = Setting("SCORECAST_POLLER_RESCUE_SECONDS", .integer(default: 10, range: 1...3_600), "Outbox rows whose lease expired are made claimable again this often.")
    package static let pollerEnsureSeconds = Setting("SCORECAST_POLLER_ENSURE_SECONDS", .integer(default: 30, range: 1...86_400), "Games without a channel for an app with automatic channels get one (channels ensure) this often.")
    package static let pollerRetireSeconds = Setting("SCORECAST_POLLER_RETIRE_SECONDS", .integer(default: 60, range: 1...86_400), "Channels of finished games are retired, and channel counts checked against the limit, this often.")
    package static let pollerReconcileMinutes = Setting("SCORECAST_POLLER_RECONCILE_MINUTES", .integer(default: 15, range: 1...10_080), "Each app's channels are compared with APNs' list this often (fixed only with SCORECAST_RECONCILE_FIX).")
    package static let pollerPruneMinutes = Setting("SCORECAST_POLLER_PRUNE_MINUTES", .integer(default: 10, range: 1...1_440), "Deliveries, events and roll-ups older than SCORECAST_RETENTION_DAYS are pruned this often.")

    /// Every setting, in the order `scorecast config` and docs/operations.md list them.
    package static let all: [Setting] = [
        databaseURL, stateDirectory, autoMigrate, schemaDirectory, databasePoolSize, databaseConnectTimeout, databaseStatementTimeout, databaseRequestTimeout,
        databasePooler, databaseDirectURL, embeddedPostgresSettings, embeddedPostgresRecoverySeconds,
        httpHost, httpPort, httpMaxBodyBytes, httpReadTimeout, httpThreads,
        httpMaxConnections, httpMaxConnectionsPerAddress, httpHeaderTimeoutSeconds, httpBodyTimeoutSeconds, httpMinBodyBytesPerSecond, httpMaxHeaderBytes,
        opsToken, opsPublic, opsPort, secretsKey, secretsKeyFile,
        logLevel, logFormat, roles,
        workers, claimBatch, leaseSeconds, pollIntervalMilliseconds, claimLingerMilliseconds, alertFastLane, alertHandOff, routineIntervalMilliseconds, shutdownGraceSeconds,
        apnsSendHost, apnsSendPort, apnsManagementHost, apnsManagementPort, apnsCAFile, apnsConnections, apnsTimeoutMilliseconds, apnsTokenRefreshMinutes, apnsProxy,
        budgetStandardPerHour, budgetFrequentPerHour, budgetFinalReserve, channelLimit, autoChannelWindowHours, feedGamesPerHour, feedGameTimeoutHours,
        retryMaxAttempts, retryBaseMilliseconds, retryMaxMilliseconds, retryAfterMaxSeconds,
        ingestMaxBatch, ingestTransactions, unknownGames, signatureToleranceSeconds, statisticsIntervalSeconds, staleSeconds,
        retentionDays, retireGraceMinutes, reconcileFix,
        pollerLeaderCheckMilliseconds, pollerStatsSeconds, pollerRescueSeconds, pollerEnsureSeconds,
        pollerRetireSeconds, pollerReconcileMinutes, pollerPruneMinutes,
    ] + devices + [feedAPIKey, feedSigningSecret]
}
