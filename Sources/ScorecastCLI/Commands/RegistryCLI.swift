import APNsCore
import Arguments
import Foundation
import Registry
import ScorecastLogging
import Postgres
import ScorecastCore
import Server
import ServiceBase

/// What the `apps`, `games` and `channels` commands share: opening the database (and APNs when
/// needed), mapping registry and database errors to exit codes, and common option parsing.
struct RegistryCLI {
    let context: CommandContext
    let configuration: Configuration
    let logger: Logger
    let pool: PostgresPool

    var terminal: Terminal { context.terminal }
    var apps: AppStore { AppStore(pool: pool) }
    var games: GameStore { GameStore(pool: pool) }
    var channels: ChannelStore { ChannelStore(pool: pool) }

    /// Opens the database for `body`; registry and database errors become `CommandError`s.
    static func run(_ context: CommandContext, _ label: String, _ body: (RegistryCLI) async throws -> Void) async throws {
        let configuration = try context.configuration()
        let logger = quietLogger(context, label, configuration)
        do {
            try await context.withDatabase(configuration, logger: logger) { database in
                try await body(RegistryCLI(context: context, configuration: configuration, logger: logger, pool: database.pool))
            }
        } catch {
            throw commandError(error)
        }
    }

    /// Connects to APNs and builds the channel registry for `body`.
    func withChannelRegistry<T: Sendable>(_ body: (ChannelRegistry, APNsRuntime) async throws -> T) async throws -> T {
        try await context.withAPNs(configuration, logger: logger) { runtime in
            let registry = ChannelRegistry(
                pool: pool, apns: runtime.clients, credentials: CredentialStore(),
                channelLimit: configuration.channelLimit, staleness: IngestSettings(configuration: configuration).staleness, logger: logger)
            return try await body(registry, runtime)
        }
    }

    /// A logger no chattier than `warning` unless `SCORECAST_LOG_LEVEL` asks for more
    /// (``CommandContext/logger(_:_:)``): a command's output is its result, not its log.
    static func quietLogger(_ context: CommandContext, _ label: String, _ configuration: Configuration) -> Logger {
        context.logger(label, configuration)
    }

    /// The exit code and message for anything a registry command throws.
    static func commandError(_ error: any Error) -> CommandError {
        switch error {
        case let error as CommandError:
            return error
        case let error as RegistryError:
            return CommandError(exitCode(error.code), error.message)
        default:
            return ErrorMapping.commandError(for: error)
        }
    }

    /// The exit code of a registry error.
    static func exitCode(_ code: RegistryError.Code) -> ExitCode {
        switch code {
        case .invalidInput: .usage
        case .notFound: .notFound
        case .apnsRefused, .channelLimitReached: .apnsRefused
        case .databaseUnavailable: .databaseUnavailable
        case .alreadyExists, .apnsUnavailable, .simulatorUnavailable, .credentialsUnusable: .failure
        }
    }

    /// `--app BUNDLE [--environment E]` as given, checked before the database is opened, so a
    /// mistyped bundle id is a usage error (exit 2) whether or not the database answers.
    static func appNamed(_ arguments: ParsedArguments, option: String = "app") throws(CommandError) -> AppName {
        try AppsCommands.checked {
            let bundleID = try arguments.required(option)
            try AppValidation.checkBundleID(bundleID, option: "--\(option)")
            return AppName(bundleID: bundleID, environment: try environment(arguments))
        }
    }

    /// The one app `name` names.
    func app(_ name: AppName) async throws -> AppRecord {
        try await apps.resolve(bundleID: name.bundleID, environment: name.environment)
    }

    /// `--environment sandbox|production`, if given.
    static func environment(_ arguments: ParsedArguments) throws(ArgumentError) -> APNsEnvironment? {
        try arguments.choice("environment", from: RegistryNames.environments).flatMap(APNsEnvironment.init(rawValue:))
    }

    /// Human-readable time: `2025-11-29 21:45:00Z`, or `-`.
    static func time(_ date: Date?) -> String {
        guard let date else { return "-" }
        return RFC3339.format(date).replacingOccurrences(of: "T", with: " ")
    }
}

/// An app as a command line names it: a checked bundle id and, when given, its environment.
struct AppName {
    /// The bundle id.
    let bundleID: String
    /// The environment, needed when the bundle id has both.
    let environment: APNsEnvironment?
}

/// The `--environment` option shared by commands naming an app.
extension OptionSpec {
    static let environment = OptionSpec.value(
        "environment", "ENV", "sandbox or production (needed when the bundle id has both)")
    static let json = OptionSpec.flag("json", "print JSON instead of a table")
}
