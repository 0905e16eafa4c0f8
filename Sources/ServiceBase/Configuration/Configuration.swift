import APNs
import DeliveryEngine
import Foundation
import ScorecastCore
import ScorecastCrypto
import Postgres
import ScorecastLogging

/// Everything `scorecast` reads from its environment, validated once at start.
///
/// Each variable is declared once, in the settings table (`Setting.all`); an invalid value stops the process
/// with a message naming the variable (see `ConfigurationError`).
package struct Configuration: Sendable {
    /// The roles a `serve` process can run.
    package enum Role: String, Sendable, CaseIterable {
        case api, worker, poller
    }

    /// Where the database is.
    package enum Database: Sendable, Equatable {
        /// `SCORECAST_DATABASE_URL`: a URL (`postgres://…`) or a libpq conninfo string.
        case external(url: String)
        /// No URL: a private cluster started in the state folder.
        case embedded
    }

    /// Where APNs is.
    package enum APNsTarget: Sendable, Equatable {
        /// Apple's (or another real) hosts, from `SCORECAST_APNS_*`.
        case remote(send: Endpoint, management: Endpoint)
        /// No hosts configured: the built-in simulator, started in-process.
        case builtInSimulator
    }

    /// A host and port, with an optional CA file for private certificates.
    package struct Endpoint: Sendable, Equatable {
        package var host: String
        package var port: Int
        package var caFile: String?
    }

    package var database: Database
    package var stateDirectory: URL
    package var autoMigrate: Bool
    package var databasePoolSize: Int
    package var databaseConnectTimeout: Duration
    package var databaseStatementTimeout: Duration
    /// How long one HTTP request may wait on the database in all (`SCORECAST_DATABASE_REQUEST_TIMEOUT_MS`).
    package var databaseRequestTimeout: Duration

    package var httpHost: String
    package var httpPort: Int
    package var httpMaxBodyBytes: Int
    package var httpReadTimeout: Duration
    package var httpThreads: Int

    package var logLevel: LogLevel
    package var logFormat: LogFormat

    package var roles: [Role]
    package var workers: Int
    package var claimBatchSize: Int
    package var leaseDuration: Duration
    package var pollInterval: Duration
    package var claimLinger: Duration
    package var alertFastLane: Bool
    package var alertHandOff: Bool
    package var routineInterval: Duration
    package var shutdownGrace: Duration

    package var apns: APNsTarget
    package var apnsConnectionsPerHost: Int
    package var apnsRequestTimeout: Duration
    package var apnsTokenRefresh: Duration
    /// `SCORECAST_APNS_PROXY`: the proxy for Apple's hosts; `nil` leaves libcurl to the standard
    /// `HTTPS_PROXY` / `NO_PROXY` variables. May hold a password: never logged.
    package var apnsProxy: String?

    /// The built-in budget profiles (`SCORECAST_BUDGET_STANDARD_PER_HOUR`,
    /// `SCORECAST_BUDGET_FREQUENT_PER_HOUR`): every app's budget is resolved from them.
    package var budgetProfiles: BudgetProfiles
    /// Priority-10 sends per channel kept for the final whistle (`SCORECAST_BUDGET_FINAL_RESERVE`).
    package var budgetFinalReserve: Int
    package var channelLimit: Int
    /// The longest `Retry-After` honoured (`SCORECAST_RETRY_AFTER_MAX_SECONDS`).
    package var retryAfterMax: Duration
    /// Attempts of one content before it is given up (its state stays pending).
    package var retryMaxAttempts: Int
    /// The backoff bound of the first retry.
    package var retryBase: Duration
    /// The largest backoff bound.
    package var retryMax: Duration

    package var ingestMaxBatch: Int
    package var ingestTransactions: Int
    package var ingestCreateUnknownGames: Bool
    package var signatureTolerance: Duration
    /// How often statistics alone are pushed (`SCORECAST_STATS_INTERVAL_SECONDS`).
    package var statisticsInterval: Duration
    /// `stale-date` = event time + this many seconds, by sport (lower case); `default` for the rest.
    package var staleSeconds: [String: Int]

    package var retentionDays: Int
    package var retireGrace: Duration
    package var reconcileFix: Bool

    /// The poller's intervals (`SCORECAST_POLLER_*`).
    package var poller: PollerSettings

    /// Connection caps and deadlines of the HTTP server (slow or greedy clients).
    package var httpMaxConnections: Int
    package var httpMaxConnectionsPerAddress: Int
    package var httpHeaderTimeout: Duration
    package var httpBodyTimeout: Duration
    package var httpMinBodyBytesPerSecond: Int
    package var httpMaxHeaderBytes: Int

    /// Bounds on the channels and games a feed can make scorecast create.
    package var autoChannelWindow: Duration
    package var feedGamesPerHour: Int
    package var feedGameTimeout: Duration

    /// The operator token guarding the ops routes (`nil`: open), and whether an open exposure on
    /// a public address is intended.
    package var opsToken: String?
    package var opsPublic: Bool
    /// Where a `serve` without the api role serves `/healthz`, `/readyz` and `/metrics`.
    package var opsPort: Int
    /// The device side: app API limits, kick-off, device expiry.
    package var devices: DeviceSettings

    /// What the main URL goes through (`SCORECAST_DATABASE_POOLER`).
    package var databasePooler: DatabasePooler = .none
    /// Where LISTEN, the poller's leader lock and migrations connect
    /// (`SCORECAST_DATABASE_DIRECT_URL`); `nil`: the main database.
    package var databaseDirectURL: String? = nil
    /// Extra `postgresql.conf` lines for the embedded cluster
    /// (`SCORECAST_EMBEDDED_POSTGRES_SETTINGS`), written after scorecast's own.
    package var embeddedPostgresSettings: [PostgresServerSetting] = []
    /// How long the embedded cluster may stay down before `/healthz` answers 503
    /// (`SCORECAST_EMBEDDED_POSTGRES_RECOVERY_SECONDS`).
    package var embeddedPostgresRecoveryLimit: Duration = .seconds(60)
    /// The keys that seal feed signing secrets (`SCORECAST_SECRETS_KEY` or `…_FILE`); `nil`:
    /// they are stored in clear.
    package var secretsKeyring: SealingKeyring? = nil
    /// The feed key and signing secret `scorecast events send` posts with when its options do
    /// not give them (`SCORECAST_API_KEY`, `SCORECAST_SIGNING_SECRET`); `serve` never reads them.
    package var feedAPIKey: String? = nil
    package var feedSigningSecret: String? = nil
}

/// What stands between scorecast and Postgres on the main database URL.
package enum DatabasePooler: String, Sendable, Equatable {
    /// Postgres itself, or a pooler in session mode: every connection is a session of its own.
    case none
    /// A pooler in transaction mode (PgBouncer `pool_mode = transaction`): a server session is
    /// shared between transactions, so nothing may outlive one — no prepared statements, no
    /// settings sent at connect (they come from the role), no LISTEN or session locks.
    case transaction
}

extension Configuration {
    /// Reads and validates the configuration from `environment` (normally the process's).
    /// `workingDirectory` anchors the default state folder.
    package static func load(
        from environment: [String: String] = ProcessInfo.processInfo.environment,
        workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    ) throws(ConfigurationError) -> Configuration {
        var env = EnvironmentReader(environment)

        let database: Database
        if let url = env.secret(
            .databaseURL,
            validate: { $0.hasPrefix("postgres://") || $0.hasPrefix("postgresql://") || $0.contains("=") },
            expectation: "a postgres:// URL or a libpq conninfo string such as \"host=… dbname=…\"")
        {
            database = .external(url: url)
        } else {
            database = .embedded
        }
        let databaseDirectURL = env.secret(
            .databaseDirectURL,
            validate: { $0.hasPrefix("postgres://") || $0.hasPrefix("postgresql://") || $0.contains("=") },
            expectation: "a postgres:// URL or a libpq conninfo string such as \"host=… dbname=…\"")
        let databasePooler = env.choice(.databasePooler, ["none": DatabasePooler.none, "transaction": .transaction]) ?? .none
        if database == .embedded && (databaseDirectURL != nil || databasePooler != .none) {
            env.problem("SCORECAST_DATABASE_DIRECT_URL and SCORECAST_DATABASE_POOLER need SCORECAST_DATABASE_URL (the embedded cluster is reached directly)")
        }
        if database != .embedded && databasePooler == .transaction && databaseDirectURL == nil {
            env.problem("SCORECAST_DATABASE_POOLER=transaction needs SCORECAST_DATABASE_DIRECT_URL: LISTEN, the poller's leader lock and migrations cannot go through a transaction pooler")
        }
        var embeddedPostgresSettings: [PostgresServerSetting] = []
        if let text = env.optionalString(.embeddedPostgresSettings) {
            do {
                embeddedPostgresSettings = try PostgresServerSetting.list(text)
            } catch {
                env.problem("SCORECAST_EMBEDDED_POSTGRES_SETTINGS: \(error.message)")
            }
            if database != .embedded {
                env.problem("SCORECAST_EMBEDDED_POSTGRES_SETTINGS applies to the embedded cluster only; with SCORECAST_DATABASE_URL set, configure that server instead")
            }
        }
        let stateText = env.string(.stateDirectory)
        let stateDirectory = stateText.hasPrefix("/")
            ? URL(fileURLWithPath: stateText)
            : workingDirectory.appendingPathComponent(stateText)

        let apns: APNsTarget
        let sendHost = env.optionalString(.apnsSendHost)
        let manageHost = env.optionalString(.apnsManagementHost)
        let sendPort = env.integer(.apnsSendPort)
        let managePort = env.integer(.apnsManagementPort)
        let caFile = env.optionalString(.apnsCAFile)
        switch (sendHost, manageHost) {
        case let (send?, manage?):
            apns = .remote(
                send: Endpoint(host: send, port: sendPort, caFile: caFile),
                management: Endpoint(host: manage, port: managePort, caFile: caFile))
        case (nil, nil):
            apns = .builtInSimulator
        default:
            env.problem("SCORECAST_APNS_SEND_HOST and SCORECAST_APNS_MANAGEMENT_HOST must be set together (or neither, for the built-in simulator)")
            apns = .builtInSimulator
        }
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            env.problem("SCORECAST_APNS_CA_FILE names a file that cannot be read: \(caFile)")
        }

        let apnsProxy = env.secret(
            .apnsProxy,
            validate: { text in (try? APNsProxy.url(text).validate()) != nil },
            expectation: "a proxy URL such as http://proxy.internal:3128 or http://user:password@proxy.internal:3128 (http, https, socks4, socks4a, socks5 or socks5h)")

        let levels = Dictionary(uniqueKeysWithValues: LogLevel.allCases.map { ($0.name, $0) })
        let formats = Dictionary(uniqueKeysWithValues: LogFormat.allCases.map { ($0.rawValue, $0) })

        var staleSeconds = ["default": 900]
        for item in env.string(.staleSeconds).split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            let (sport, value) = parts.count == 2 ? (parts[0].lowercased(), parts[1]) : ("default", parts[0])
            if let seconds = Int(value), (1...86_400).contains(seconds), !sport.isEmpty {
                staleSeconds[sport] = seconds
            } else {
                env.problem("SCORECAST_STALE_SECONDS must be seconds (1–86400) or sport=seconds pairs, such as 900,basketball=300; got \"\(item)\"")
            }
        }

        let configuration = Configuration(
            database: database,
            stateDirectory: stateDirectory.standardizedFileURL,
            autoMigrate: env.boolean(.autoMigrate),
            databasePoolSize: env.integer(.databasePoolSize),
            databaseConnectTimeout: .seconds(env.integer(.databaseConnectTimeout)),
            databaseStatementTimeout: .milliseconds(env.integer(.databaseStatementTimeout)),
            databaseRequestTimeout: .milliseconds(env.integer(.databaseRequestTimeout)),
            httpHost: env.string(.httpHost),
            httpPort: env.integer(.httpPort),
            httpMaxBodyBytes: env.integer(.httpMaxBodyBytes),
            httpReadTimeout: .seconds(env.integer(.httpReadTimeout)),
            httpThreads: env.integer(.httpThreads),
            logLevel: env.choice(.logLevel, levels) ?? .info,
            logFormat: env.choice(.logFormat, formats) ?? .text,
            roles: env.list(.roles).compactMap(Role.init(rawValue:)),
            workers: env.integer(.workers),
            claimBatchSize: env.integer(.claimBatch),
            leaseDuration: .seconds(env.integer(.leaseSeconds)),
            pollInterval: .milliseconds(env.integer(.pollIntervalMilliseconds)),
            claimLinger: .milliseconds(env.integer(.claimLingerMilliseconds)),
            alertFastLane: env.boolean(.alertFastLane),
            alertHandOff: env.boolean(.alertHandOff),
            routineInterval: .milliseconds(env.integer(.routineIntervalMilliseconds)),
            shutdownGrace: .seconds(env.integer(.shutdownGraceSeconds)),
            apns: apns,
            apnsConnectionsPerHost: env.integer(.apnsConnections),
            apnsRequestTimeout: .milliseconds(env.integer(.apnsTimeoutMilliseconds)),
            apnsTokenRefresh: .seconds(60 * env.integer(.apnsTokenRefreshMinutes)),
            apnsProxy: apnsProxy,
            budgetProfiles: BudgetProfiles(
                standardPerHour: env.integer(.budgetStandardPerHour), frequentPerHour: env.integer(.budgetFrequentPerHour)),
            budgetFinalReserve: env.integer(.budgetFinalReserve),
            channelLimit: env.integer(.channelLimit),
            retryAfterMax: .seconds(env.integer(.retryAfterMaxSeconds)),
            retryMaxAttempts: env.integer(.retryMaxAttempts),
            retryBase: .milliseconds(env.integer(.retryBaseMilliseconds)),
            retryMax: .milliseconds(env.integer(.retryMaxMilliseconds)),
            ingestMaxBatch: env.integer(.ingestMaxBatch),
            ingestTransactions: env.integer(.ingestTransactions),
            ingestCreateUnknownGames: env.choice(.unknownGames, ["create": true, "refuse": false]) ?? true,
            signatureTolerance: .seconds(env.integer(.signatureToleranceSeconds)),
            statisticsInterval: .seconds(env.integer(.statisticsIntervalSeconds)),
            staleSeconds: staleSeconds,
            retentionDays: env.integer(.retentionDays),
            retireGrace: .seconds(60 * env.integer(.retireGraceMinutes)),
            reconcileFix: env.boolean(.reconcileFix),
            poller: PollerSettings.load(&env),
            httpMaxConnections: env.integer(.httpMaxConnections),
            httpMaxConnectionsPerAddress: env.integer(.httpMaxConnectionsPerAddress),
            httpHeaderTimeout: .seconds(env.integer(.httpHeaderTimeoutSeconds)),
            httpBodyTimeout: .seconds(env.integer(.httpBodyTimeoutSeconds)),
            httpMinBodyBytesPerSecond: env.integer(.httpMinBodyBytesPerSecond),
            httpMaxHeaderBytes: env.integer(.httpMaxHeaderBytes),
            autoChannelWindow: .seconds(3_600 * env.integer(.autoChannelWindowHours)),
            feedGamesPerHour: env.integer(.feedGamesPerHour),
            feedGameTimeout: .seconds(3_600 * env.integer(.feedGameTimeoutHours)),
            opsToken: env.secret(
                .opsToken, validate: { $0.count >= 16 && !$0.contains(where: \.isWhitespace) },
                expectation: "at least 16 characters without spaces (e.g. `openssl rand -hex 32`)"),
            opsPublic: env.boolean(.opsPublic),
            opsPort: env.integer(.opsPort),
            devices: DeviceSettings.load(&env),
            databasePooler: databasePooler,
            databaseDirectURL: databaseDirectURL,
            embeddedPostgresSettings: embeddedPostgresSettings,
            embeddedPostgresRecoveryLimit: .seconds(env.integer(.embeddedPostgresRecoverySeconds)),
            secretsKeyring: Self.secretsKeyring(&env),
            feedAPIKey: env.secret(
                .feedAPIKey, validate: { APIKeyToken(parsing: $0) != nil },
                expectation: "a feed key as `scorecast keys create` prints it (sck_…)"),
            feedSigningSecret: env.secret(
                .feedSigningSecret, validate: { $0.hasPrefix(SigningSecret.scheme + "_") && !$0.contains(where: \.isWhitespace) },
                expectation: "a signing secret as `scorecast keys create --hmac` prints it (scs_…)"))

        if configuration.retryBase > configuration.retryMax {
            env.problem("SCORECAST_RETRY_BASE_MS (\(configuration.retryBase)) must not exceed SCORECAST_RETRY_MAX_MS (\(configuration.retryMax))")
        }
        if !env.problems.isEmpty { throw ConfigurationError(problems: env.problems) }
        return configuration
    }

    /// Every variable `load` reads: the one settings table (`Setting.all`).
    package static var settings: [Setting] { Setting.all }
}
