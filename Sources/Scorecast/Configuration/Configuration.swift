import Foundation
import Logging

/// Everything `scorecast` reads from its environment, validated once at start.
///
/// Each variable is documented in `Configuration.settings`; an invalid value stops the process
/// with a message naming the variable (see `ConfigurationError`).
public struct Configuration: Sendable {
    /// The roles a `serve` process can run.
    public enum Role: String, Sendable, CaseIterable {
        case api, worker, poller
    }

    /// Where the database is.
    public enum Database: Sendable, Equatable {
        /// `SCORECAST_DATABASE_URL`: a URL (`postgres://…`) or a libpq conninfo string.
        case external(url: String)
        /// No URL: a private cluster started in the state folder.
        case embedded
    }

    /// Where APNs is.
    public enum APNsTarget: Sendable, Equatable {
        /// Apple's (or another real) hosts, from `SCORECAST_APNS_*`.
        case remote(send: Endpoint, management: Endpoint)
        /// No hosts configured: the built-in simulator, started in-process.
        case builtInSimulator
    }

    /// A host and port, with an optional CA file for private certificates.
    public struct Endpoint: Sendable, Equatable {
        public var host: String
        public var port: Int
        public var caFile: String?
    }

    public var database: Database
    public var stateDirectory: URL
    public var autoMigrate: Bool
    public var databasePoolSize: Int
    public var databaseConnectTimeout: Duration
    public var databaseStatementTimeout: Duration

    public var httpHost: String
    public var httpPort: Int
    public var httpMaxBodyBytes: Int
    public var httpReadTimeout: Duration
    public var httpThreads: Int

    public var logLevel: LogLevel
    public var logFormat: LogFormat

    public var roles: [Role]
    public var workers: Int
    public var claimBatchSize: Int
    public var leaseDuration: Duration
    public var pollInterval: Duration
    public var claimLinger: Duration
    public var routineInterval: Duration
    public var shutdownGrace: Duration

    public var apns: APNsTarget
    public var apnsConnectionsPerHost: Int
    public var apnsRequestTimeout: Duration
    public var apnsTokenRefresh: Duration

    public var budgetStandardPerHour: Int
    public var budgetFrequentPerHour: Int
    public var channelLimit: Int

    public var ingestMaxBatch: Int
    public var ingestTransactions: Int
    public var ingestCreateUnknownGames: Bool
    public var signatureTolerance: Duration
    /// `stale-date` = event time + this many seconds, by sport (lower case); `default` for the rest.
    public var staleSeconds: [String: Int]

    public var retentionDays: Int
    public var retireGrace: Duration
    public var reconcileFix: Bool

    /// The poller's intervals (`SCORECAST_POLLER_*`).
    public var poller: PollerSettings
    /// The device side: app API limits, kick-off, device expiry.
    public var devices: DeviceSettings
}

extension Configuration {
    /// Reads and validates the configuration from `environment` (normally the process's).
    /// `workingDirectory` anchors the default state folder.
    public static func load(
        from environment: [String: String] = ProcessInfo.processInfo.environment,
        workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    ) throws(ConfigurationError) -> Configuration {
        var env = EnvironmentReader(environment)

        let database: Database
        if let url = env.secretURL(
            "SCORECAST_DATABASE_URL",
            validate: { $0.hasPrefix("postgres://") || $0.hasPrefix("postgresql://") || $0.contains("=") },
            expectation: "a postgres:// URL or a libpq conninfo string such as \"host=… dbname=…\"")
        {
            database = .external(url: url)
        } else {
            database = .embedded
        }
        let stateText = env.string("SCORECAST_STATE_DIR", default: ".scorecast")
        let stateDirectory = stateText.hasPrefix("/")
            ? URL(fileURLWithPath: stateText)
            : workingDirectory.appendingPathComponent(stateText)

        let apns: APNsTarget
        let sendHost = env.optionalString("SCORECAST_APNS_SEND_HOST")
        let manageHost = env.optionalString("SCORECAST_APNS_MANAGEMENT_HOST")
        let sendPort = env.integer("SCORECAST_APNS_SEND_PORT", default: 443, in: 1...65535)
        let managePort = env.integer("SCORECAST_APNS_MANAGEMENT_PORT", default: 2196, in: 1...65535)
        let caFile = env.optionalString("SCORECAST_APNS_CA_FILE")
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

        let levels = Dictionary(uniqueKeysWithValues: LogLevel.allCases.map { ($0.name, $0) })
        let formats = Dictionary(uniqueKeysWithValues: LogFormat.allCases.map { ($0.rawValue, $0) })
        let roleNames = env.list(
            "SCORECAST_ROLES", default: Role.allCases.map(\.rawValue), allowed: Set(Role.allCases.map(\.rawValue)))

        var staleSeconds = ["default": 900]
        if let text = env.optionalString("SCORECAST_STALE_SECONDS") {
            for item in text.split(separator: ",") {
                let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
                let (sport, value) = parts.count == 2 ? (parts[0].lowercased(), parts[1]) : ("default", parts[0])
                if let seconds = Int(value), (1...86_400).contains(seconds), !sport.isEmpty {
                    staleSeconds[sport] = seconds
                } else {
                    env.problem("SCORECAST_STALE_SECONDS must be seconds (1–86400) or sport=seconds pairs, such as 900,basketball=300; got \"\(item)\"")
                }
            }
        }

        let configuration = Configuration(
            database: database,
            stateDirectory: stateDirectory.standardizedFileURL,
            autoMigrate: env.boolean("SCORECAST_AUTO_MIGRATE", default: true),
            databasePoolSize: env.integer("SCORECAST_DATABASE_POOL_SIZE", default: 10, in: 1...200),
            databaseConnectTimeout: .seconds(env.integer("SCORECAST_DATABASE_CONNECT_TIMEOUT_SECONDS", default: 5, in: 1...300)),
            databaseStatementTimeout: .milliseconds(env.integer("SCORECAST_DATABASE_STATEMENT_TIMEOUT_MS", default: 30_000, in: 100...3_600_000)),
            httpHost: env.string("SCORECAST_HTTP_HOST", default: "127.0.0.1"),
            httpPort: env.integer("SCORECAST_HTTP_PORT", default: 8080, in: 0...65535),
            httpMaxBodyBytes: env.integer("SCORECAST_HTTP_MAX_BODY_BYTES", default: 1_048_576, in: 1_024...67_108_864),
            httpReadTimeout: .seconds(env.integer("SCORECAST_HTTP_READ_TIMEOUT_SECONDS", default: 30, in: 1...3_600)),
            httpThreads: env.integer("SCORECAST_HTTP_THREADS", default: 4, in: 1...256),
            logLevel: env.choice("SCORECAST_LOG_LEVEL", default: .info, from: levels),
            logFormat: env.choice("SCORECAST_LOG_FORMAT", default: .text, from: formats),
            roles: roleNames.compactMap(Role.init(rawValue:)),
            workers: env.integer("SCORECAST_WORKERS", default: 2, in: 1...256),
            claimBatchSize: env.integer("SCORECAST_CLAIM_BATCH", default: 256, in: 1...1_000),
            leaseDuration: .seconds(env.integer("SCORECAST_LEASE_SECONDS", default: 30, in: 2...3_600)),
            pollInterval: .milliseconds(env.integer("SCORECAST_POLL_INTERVAL_MS", default: 1_000, in: 10...60_000)),
            claimLinger: .milliseconds(env.integer("SCORECAST_CLAIM_LINGER_MS", default: 10, in: 0...1_000)),
            routineInterval: .milliseconds(env.integer("SCORECAST_ROUTINE_INTERVAL_MS", default: 2_000, in: 0...3_600_000)),
            shutdownGrace: .seconds(env.integer("SCORECAST_SHUTDOWN_GRACE_SECONDS", default: 10, in: 1...600)),
            apns: apns,
            apnsConnectionsPerHost: env.integer("SCORECAST_APNS_CONNECTIONS", default: 2, in: 1...32),
            apnsRequestTimeout: .milliseconds(env.integer("SCORECAST_APNS_TIMEOUT_MS", default: 10_000, in: 100...120_000)),
            apnsTokenRefresh: .seconds(60 * env.integer("SCORECAST_APNS_TOKEN_REFRESH_MINUTES", default: 40, in: 20...59)),
            budgetStandardPerHour: env.integer("SCORECAST_BUDGET_STANDARD_PER_HOUR", default: 12, in: 0...10_000),
            budgetFrequentPerHour: env.integer("SCORECAST_BUDGET_FREQUENT_PER_HOUR", default: 60, in: 0...10_000),
            channelLimit: env.integer("SCORECAST_CHANNEL_LIMIT", default: 10_000, in: 1...10_000),
            ingestMaxBatch: env.integer("SCORECAST_INGEST_MAX_BATCH", default: 500, in: 1...10_000),
            ingestTransactions: env.integer("SCORECAST_INGEST_TRANSACTIONS", default: 2, in: 1...64),
            ingestCreateUnknownGames: env.choice(
                "SCORECAST_UNKNOWN_GAMES", default: true, from: ["create": true, "refuse": false]),
            signatureTolerance: .seconds(env.integer("SCORECAST_SIGNATURE_TOLERANCE_SECONDS", default: 300, in: 1...86_400)),
            staleSeconds: staleSeconds,
            retentionDays: env.integer("SCORECAST_RETENTION_DAYS", default: 14, in: 1...3_650),
            retireGrace: .seconds(60 * env.integer("SCORECAST_RETIRE_GRACE_MINUTES", default: 240, in: 0...10_080)),
            reconcileFix: env.boolean("SCORECAST_RECONCILE_FIX", default: false),
            poller: PollerSettings.load(&env),
            devices: DeviceSettings.load(&env))

        if !env.problems.isEmpty { throw ConfigurationError(problems: env.problems) }
        return configuration
    }

    /// Every variable `load` reads, with its default and meaning, in documentation order.
    public static let settings: [SettingDescription] = [
        .init(name: "SCORECAST_DATABASE_URL", defaultValue: "unset", help: "Postgres URL or conninfo. Unset: a private Postgres cluster is started in the state folder."),
        .init(name: "SCORECAST_STATE_DIR", defaultValue: ".scorecast", help: "State folder (embedded Postgres, simulator certificate and keys), relative to the working directory."),
        .init(name: "SCORECAST_AUTO_MIGRATE", defaultValue: "true", help: "Apply pending schema migrations when `serve` starts."),
        .init(name: "SCORECAST_DATABASE_POOL_SIZE", defaultValue: "10", help: "Connections per process (1–200)."),
        .init(name: "SCORECAST_DATABASE_CONNECT_TIMEOUT_SECONDS", defaultValue: "5", help: "Connect timeout."),
        .init(name: "SCORECAST_DATABASE_STATEMENT_TIMEOUT_MS", defaultValue: "30000", help: "Statement timeout."),
        .init(name: "SCORECAST_HTTP_HOST", defaultValue: "127.0.0.1", help: "Address the HTTP API listens on."),
        .init(name: "SCORECAST_HTTP_PORT", defaultValue: "8080", help: "HTTP port (0 picks a free one)."),
        .init(name: "SCORECAST_HTTP_MAX_BODY_BYTES", defaultValue: "1048576", help: "Largest request body; larger ones get 413."),
        .init(name: "SCORECAST_HTTP_READ_TIMEOUT_SECONDS", defaultValue: "30", help: "Idle connections are closed after this."),
        .init(name: "SCORECAST_HTTP_THREADS", defaultValue: "4", help: "HTTP server threads."),
        .init(name: "SCORECAST_LOG_LEVEL", defaultValue: "info", help: "trace, debug, info, notice, warning, error or critical."),
        .init(name: "SCORECAST_LOG_FORMAT", defaultValue: "text", help: "text, or json for one JSON object per line."),
        .init(name: "SCORECAST_ROLES", defaultValue: "api,worker,poller", help: "Roles `serve` runs (also `serve --roles`)."),
        .init(name: "SCORECAST_WORKERS", defaultValue: "2", help: "Concurrent send workers per process (each claims a batch, sends it concurrently, records it while claiming the next)."),
        .init(name: "SCORECAST_CLAIM_BATCH", defaultValue: "256", help: "Outbox rows a worker claims at once."),
        .init(name: "SCORECAST_LEASE_SECONDS", defaultValue: "30", help: "Lease on claimed outbox rows; expired leases are rescued."),
        .init(name: "SCORECAST_POLL_INTERVAL_MS", defaultValue: "1000", help: "Workers poll this often when no NOTIFY arrives."),
        .init(name: "SCORECAST_CLAIM_LINGER_MS", defaultValue: "10", help: "After a claim that did not fill a batch, a worker waits this long before claiming again (0–1000), so claims are fewer and larger under load."),
        .init(name: "SCORECAST_ROUTINE_INTERVAL_MS", defaultValue: "2000", help: "Least spacing of routine (priority 5) updates to one channel."),
        .init(name: "SCORECAST_SHUTDOWN_GRACE_SECONDS", defaultValue: "10", help: "How long in-flight work may take to finish on SIGTERM."),
        .init(name: "SCORECAST_APNS_SEND_HOST", defaultValue: "unset", help: "Broadcast/push host, e.g. api.push.apple.com. Unset (with the management host): the built-in simulator."),
        .init(name: "SCORECAST_APNS_SEND_PORT", defaultValue: "443", help: "Port of the send host."),
        .init(name: "SCORECAST_APNS_MANAGEMENT_HOST", defaultValue: "unset", help: "Channel-management host, e.g. api-manage-broadcast.push.apple.com."),
        .init(name: "SCORECAST_APNS_MANAGEMENT_PORT", defaultValue: "2196", help: "Port of the management host (2195 sandbox, 2196 production)."),
        .init(name: "SCORECAST_APNS_CA_FILE", defaultValue: "unset", help: "Extra CA certificate file (for a private APNs stand-in)."),
        .init(name: "SCORECAST_APNS_CONNECTIONS", defaultValue: "2", help: "HTTP/2 connections per APNs host."),
        .init(name: "SCORECAST_APNS_TIMEOUT_MS", defaultValue: "10000", help: "Deadline of every APNs request."),
        .init(name: "SCORECAST_APNS_TOKEN_REFRESH_MINUTES", defaultValue: "40", help: "Provider token age at which it is renewed (20–59)."),
        .init(name: "SCORECAST_BUDGET_STANDARD_PER_HOUR", defaultValue: "12", help: "Priority-10 sends per channel per hour, standard apps (Apple publishes no number)."),
        .init(name: "SCORECAST_BUDGET_FREQUENT_PER_HOUR", defaultValue: "60", help: "The same for apps with frequent updates."),
        .init(name: "SCORECAST_CHANNEL_LIMIT", defaultValue: "10000", help: "Channels per app and environment (Apple's limit is 10,000)."),
        .init(name: "SCORECAST_INGEST_MAX_BATCH", defaultValue: "500", help: "Most events in one POST /v1/events."),
        .init(name: "SCORECAST_INGEST_TRANSACTIONS", defaultValue: "2", help: "Ingest transactions at once (1–64); requests arriving while all are busy share the next one (group commit, up to SCORECAST_INGEST_MAX_BATCH events)."),
        .init(name: "SCORECAST_UNKNOWN_GAMES", defaultValue: "create", help: "create: events for unknown games create them; refuse: 422."),
        .init(name: "SCORECAST_SIGNATURE_TOLERANCE_SECONDS", defaultValue: "300", help: "Accepted clock skew of signed ingest requests."),
        .init(name: "SCORECAST_STALE_SECONDS", defaultValue: "900", help: "Live Activity stale-date after the event: seconds, and/or sport=seconds pairs (900,basketball=300)."),
        .init(name: "SCORECAST_RETENTION_DAYS", defaultValue: "14", help: "Deliveries and events older than this are pruned."),
        .init(name: "SCORECAST_RETIRE_GRACE_MINUTES", defaultValue: "240", help: "Channels of finished games are deleted this long after the final event."),
        .init(name: "SCORECAST_RECONCILE_FIX", defaultValue: "false", help: "Let the poller fix what reconciliation finds (else it only reports)."),
    ] + PollerSettings.settings + DeviceSettings.settings
}
