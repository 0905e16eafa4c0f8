import Arguments
import Foundation
import Registry
import ScorecastCore

/// `scorecast channels create|ensure|list|show|delete|reconcile`: APNs broadcast channels and
/// the registry that records which game each one serves.
enum ChannelsCommands {
    static let all: [CommandDefinition] = [create, ensure, list, show, delete, reconcile]

    static let create = CommandDefinition(
        ["channels", "create"], summary: "Create an APNs channel for a game and an app",
        options: [
            .value("game", "ID", required: true, "the game the channel serves"),
            .value("app", "BUNDLE", required: true, "the app's bundle id"),
            .environment,
            .value("policy", "POLICY", "no-store (No Message Stored, higher budget) or most-recent; default: the app's setting"),
            .flag("another", "create one more even if the game already has a live channel of this app and policy"),
            .json,
        ],
        details: """
            Idempotent: if the game already has a live channel of the app (in that environment) with
            the same storage policy, that channel is shown and nothing is created (every update
            would otherwise be broadcast twice); --another creates one more anyway. It also lifts
            the game's opt-out of the app's automatic channels (see `channels delete`).

            Asks APNs to create the channel, then records it and its binding to the game in one
            transaction. If that write fails, the channel is deleted at APNs again (or recorded for
            `channels reconcile --fix`): nothing leaks. From 90 % of the channel limit
            (SCORECAST_CHANNEL_LIMIT, per app and environment) a warning is printed on stderr; at
            the limit the command refuses before calling APNs (exit code 4).
            """
    ) { arguments, context in
        let gameID = try arguments.required("game")
        try AppsCommands.checked { try GameDraft.checkID(gameID, option: "--game") }
        let policy = try arguments.choice("policy", from: RegistryNames.storagePolicies).flatMap(RegistryNames.storagePolicy(named:))
        let appName = try RegistryCLI.appNamed(arguments)
        try await RegistryCLI.run(context, "channels") { cli in
            let app = try await cli.app(appName)
            try await cli.games.requireExisting(gameID)
            let created = try await cli.withChannelRegistry { registry, _ in
                try await registry.createChannel(gameID: gameID, app: app, policy: policy, another: arguments.flag("another"))
            }
            if let warning = created.limitWarning { cli.terminal.error("warning: \(warning)") }
            if created.alreadyExisted {
                cli.terminal.error(
                    "note: game \(gameID) already has live channel \(created.listing.channel.id) of \(app.bundleID) (\(app.environment.rawValue)) "
                        + "with this storage policy: nothing created (--another makes one more)")
            }
            try printChannel(cli, created.listing, json: arguments.flag("json"))
        }
    }

    static let ensure = CommandDefinition(
        ["channels", "ensure"], summary: "Create the missing channel of a game for every app with automatic channels",
        options: [.value("game", "ID", required: true, "the game"), .json],
        details: """
            For every app with automatic channels (see `apps add --no-auto-channels`) that has no
            live channel for the game, creates one with the app's default storage policy. Safe to
            repeat and to run concurrently. Exit code 4 when APNs refused any app's channel.
            """
    ) { arguments, context in
        let gameID = try arguments.required("game")
        try AppsCommands.checked { try GameDraft.checkID(gameID, option: "--game") }
        try await RegistryCLI.run(context, "channels") { cli in
            let report = try await cli.withChannelRegistry { registry, _ in try await registry.ensureChannels(gameID: gameID) }
            for warning in report.warnings { cli.terminal.error("warning: \(warning)") }
            if arguments.flag("json") {
                try cli.terminal.json(EnsureView(report))
            } else if report.results.isEmpty {
                cli.terminal.line("no app has automatic channels: nothing to do")
            } else {
                var table = TextTable(["app", "env", "result", "channel"])
                for result in report.results {
                    let (text, channel): (String, String) = switch result.outcome {
                    case .created(let listing): ("created", "\(listing.channel.id)  \(listing.channel.apnsChannelID)")
                    case .existing(let listing): ("exists", "\(listing.channel.id)  \(listing.channel.apnsChannelID)")
                    case .skippedPaused(let reason): ("skipped (paused: \(reason))", "-")
                    case .optedOut: ("skipped (an admin deleted its channel; `channels create` brings it back)", "-")
                    case .failed(let error): ("failed: \(error.message)", "-")
                    }
                    table.add([result.app.bundleID, result.app.environment.rawValue, text, channel])
                }
                cli.terminal.print(table.render())
            }
            if let failure = report.failures.first {
                throw CommandError(RegistryCLI.exitCode(failure.error.code), "\(report.failures.count) app(s) got no channel: \(failure.error.message)")
            }
        }
    }

    static let list = CommandDefinition(
        ["channels", "list"], summary: "List channels",
        options: [
            .value("game", "ID", "only channels of this game"),
            .value("app", "BUNDLE", "only channels of this app"),
            .environment,
            .value("status", "STATUS", "only active, retiring, deleted or gone channels"),
            .json,
        ]
    ) { arguments, context in
        let status = try arguments.choice("status", from: ChannelRecord.Status.allCases.map(\.rawValue)).flatMap(ChannelRecord.Status.init(rawValue:))
        let gameID = arguments.value("game")
        if let gameID { try AppsCommands.checked { try GameDraft.checkID(gameID, option: "--game") } }
        let appName = arguments.value("app") == nil ? nil : try RegistryCLI.appNamed(arguments)
        try await RegistryCLI.run(context, "channels") { cli in
            var appIDs: [Int64]?
            if let appName {
                let (bundleID, environment) = (appName.bundleID, appName.environment)
                let apps = try await cli.apps.find(bundleID: bundleID).filter { environment == nil || $0.environment == environment }
                guard !apps.isEmpty else { throw RegistryError(.notFound, "no app \(bundleID) (see `scorecast apps list`)") }
                appIDs = apps.map(\.id)
            } else if let environment = try RegistryCLI.environment(arguments) {
                appIDs = try await cli.apps.all().filter { $0.environment == environment }.map(\.id)
            }
            let channels = try await cli.channels.list(ChannelStore.Filter(gameID: gameID, appIDs: appIDs, status: status))
            if arguments.flag("json") {
                try cli.terminal.json(channels.map(ChannelView.init))
            } else if channels.isEmpty {
                cli.terminal.line("no channels")
            } else {
                cli.terminal.print(table(channels).render())
            }
        }
    }

    static let show = CommandDefinition(
        ["channels", "show"], summary: "Show one channel", options: [.json], positionals: ["ID"],
        details: "ID is the registry id (a number, as in `channels list`) or the APNs channel id."
    ) { arguments, context in
        let id = try channelArgument(arguments)
        try await RegistryCLI.run(context, "channels") { cli in
            try printChannel(cli, try await cli.channel(id), json: arguments.flag("json"))
        }
    }

    static let delete = CommandDefinition(
        ["channels", "delete"], summary: "Delete a channel at APNs and mark it deleted",
        options: [.json], positionals: ["ID"],
        details: """
            ID is the registry id or the APNs channel id. Deleting is irreversible at APNs. Safe to
            repeat: an already deleted channel is left alone, and one APNs no longer knows is marked
            deleted as well. If APNs refuses, nothing changes (exit code 4, reason printed).

            For an app with automatic channels, the channel's games opt out of them: neither
            `channels ensure` nor the poller creates a new channel of that app for those games
            (phones subscribed to the old id would never hear it). `channels create` lifts it.
            """
    ) { arguments, context in
        let id = try channelArgument(arguments)
        try await RegistryCLI.run(context, "channels") { cli in
            let listing = try await cli.channel(id)
            let result: DeleteResult
            if listing.channel.status == .deleted {
                result = DeleteResult(outcome: .alreadyDeleted, optedOutGames: [])
            } else {
                result = try await cli.withChannelRegistry { registry, _ in
                    try await registry.deleteChannel(id: listing.channel.id, reason: .admin)
                }
            }
            let outcome = result.outcome
            let text = switch outcome {
            case .deleted: "deleted"
            case .unknownToAPNs: "deleted (APNs no longer knew it)"
            case .alreadyDeleted: "already deleted"
            }
            if arguments.flag("json") {
                struct Result: Encodable { let id: Int64; let channelId: String; let outcome: String; let optedOutGames: [String] }
                let name = switch outcome {
                case .deleted: "deleted"
                case .unknownToAPNs: "unknown-to-apns"
                case .alreadyDeleted: "already-deleted"
                }
                try cli.terminal.json(Result(
                    id: listing.channel.id, channelId: listing.channel.apnsChannelID, outcome: name, optedOutGames: result.optedOutGames))
            } else {
                cli.terminal.line("channel \(listing.channel.id) (\(listing.channel.apnsChannelID)): \(text)")
                for game in result.optedOutGames {
                    cli.terminal.line(
                        "game \(game) opts out of \(listing.bundleID)'s automatic channels: none will be created for it again "
                            + "(`scorecast channels create --game \(game) --app \(listing.bundleID)` brings one back)")
                }
            }
        }
    }

    static let reconcile = CommandDefinition(
        ["channels", "reconcile"], summary: "Compare APNs' channels with the registry (and --fix the differences)",
        options: [
            .value("app", "BUNDLE", "only this app (default: every app)"),
            .environment,
            .flag("fix", "delete orphans at APNs, mark gone channels, retry recorded orphans"),
            .json,
        ],
        details: """
            Orphans: channels APNs lists that the registry does not hold as live (a failed
            registry write, a channel made elsewhere). Gone: channels the registry holds as live
            that APNs does not list. Without --fix only the report is printed. Exit code 4 when APNs
            refused a list or (with --fix) a deletion.
            """
    ) { arguments, context in
        let fix = arguments.flag("fix")
        let appName = arguments.value("app") == nil ? nil : try RegistryCLI.appNamed(arguments)
        try await RegistryCLI.run(context, "channels") { cli in
            let apps: [AppRecord]
            if let appName {
                let (bundleID, environment) = (appName.bundleID, appName.environment)
                apps = try await cli.apps.find(bundleID: bundleID).filter { environment == nil || $0.environment == environment }
                guard !apps.isEmpty else { throw RegistryError(.notFound, "no app \(bundleID) (see `scorecast apps list`)") }
            } else {
                let environment = try RegistryCLI.environment(arguments)
                apps = try await cli.apps.all().filter { environment == nil || $0.environment == environment }
            }
            guard !apps.isEmpty else {
                cli.terminal.line("no apps: nothing to reconcile")
                return
            }
            var reports: [ReconcileReport] = []
            var failures: [(AppRecord, CommandError)] = []
            try await cli.withChannelRegistry { registry, _ in
                for app in apps {
                    do {
                        reports.append(try await registry.reconcile(app: app, fix: fix))
                    } catch let error as RegistryError where error.code != .databaseUnavailable {
                        failures.append((app, RegistryCLI.commandError(error)))
                    }
                }
            }
            if arguments.flag("json") {
                try cli.terminal.json(reports.map(ReconcileView.init))
            } else {
                for report in reports { cli.terminal.print(render(report)) }
            }
            for (app, failure) in failures {
                cli.terminal.error("\(app.bundleID) (\(app.environment)): \(failure.message)")
            }
            if let first = failures.first?.1 {
                throw CommandError(first.exitCode, "\(failures.count) app(s) could not be reconciled")
            }
            let failedOrphans = reports.reduce(0) { $0 + $1.failedOrphans.count }
            if failedOrphans > 0 {
                throw CommandError(.apnsRefused, "\(failedOrphans) orphan(s) could not be deleted; they are recorded and retried next time")
            }
        }
    }

    // MARK: - Output

    /// The channels table of `list` and `games show`.
    static func table(_ channels: [ChannelListing]) -> TextTable {
        var table = TextTable(["id", "apns channel id", "app", "env", "policy", "status", "games", "created"])
        for listing in channels {
            table.add([
                String(listing.channel.id), listing.channel.apnsChannelID, listing.bundleID, listing.environment.rawValue,
                RegistryNames.storagePolicy(listing.channel.storagePolicy), listing.channel.status.rawValue,
                listing.gameIDs.isEmpty ? "-" : listing.gameIDs.joined(separator: ","), RegistryCLI.time(listing.channel.createdAt),
            ])
        }
        return table
    }

    private static func printChannel(_ cli: RegistryCLI, _ listing: ChannelListing, json: Bool) throws {
        if json {
            try cli.terminal.json(ChannelView(listing))
            return
        }
        var table = TextTable(["field", "value"])
        table.add(["id", String(listing.channel.id)])
        table.add(["apns channel id", listing.channel.apnsChannelID])
        table.add(["app", "\(listing.bundleID) (\(listing.environment))"])
        table.add(["storage policy", RegistryNames.storagePolicy(listing.channel.storagePolicy)])
        table.add(["status", listing.channel.status.rawValue])
        table.add(["games", listing.gameIDs.isEmpty ? "-" : listing.gameIDs.joined(separator: ", ")])
        table.add(["created", RegistryCLI.time(listing.channel.createdAt)])
        if let deletedAt = listing.channel.deletedAt { table.add(["deleted", RegistryCLI.time(deletedAt)]) }
        cli.terminal.print(table.render())
    }

    private static func render(_ report: ReconcileReport) -> String {
        var lines = ["\(report.app.bundleID) (\(report.app.environment)): APNs lists \(report.apnsChannelCount), "
            + "the registry holds \(report.registryLiveCount) live"]
        if report.isClean {
            lines.append("  in agreement")
        }
        let deleted = Set(report.deletedOrphans)
        let failed = Dictionary(report.failedOrphans.map { ($0.apnsChannelID, $0.message) }, uniquingKeysWith: { first, _ in first })
        for orphan in report.diff.orphans {
            var what = "orphan  \(orphan.apnsChannelID)  "
            what += orphan.registryStatus.map { "(registry: \($0.rawValue))" } ?? (orphan.recorded ? "(recorded orphan)" : "(not in the registry)")
            if report.fixed {
                what += deleted.contains(orphan.apnsChannelID) ? "  → deleted at APNs" : "  → NOT deleted: \(failed[orphan.apnsChannelID] ?? "?")"
            }
            lines.append("  " + what)
        }
        for channel in report.diff.gone {
            lines.append("  gone    \(channel.apnsChannelID)  (channel \(channel.id), \(channel.status.rawValue) in the registry)"
                + (report.fixed ? "  → marked gone" : ""))
        }
        for id in report.diff.settledOrphanRecords {
            lines.append("  settled \(id)  (recorded orphan APNs no longer lists)" + (report.fixed ? "  → record removed" : ""))
        }
        if !report.isClean && !report.fixed { lines.append("  run again with --fix to repair") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The one positional argument: a registry id or an APNs channel id.
    private static func channelArgument(_ arguments: ParsedArguments) throws -> String {
        guard arguments.positionals.count == 1, let id = arguments.positionals.first, !id.isEmpty else {
            throw CommandError.usage("give exactly one channel id (the registry id from `channels list`, or the APNs id)")
        }
        return id
    }
}

extension RegistryCLI {
    /// The channel named by a registry id or an APNs channel id.
    func channel(_ id: String) async throws -> ChannelListing {
        if let number = Int64(id), let listing = try await channels.find(id: number) { return listing }
        let matches = try await channels.find(apnsChannelID: id)
        switch matches.count {
        case 0: throw RegistryError(.notFound, "no channel \(id) (see `scorecast channels list`)")
        case 1: return matches[0]
        default:
            throw RegistryError(.invalidInput, "APNs id \(id) is used by \(matches.count) apps: name the channel by its registry id ("
                + matches.map { String($0.channel.id) }.joined(separator: ", ") + ")")
        }
    }
}

/// A channel as the CLI prints it in JSON.
struct ChannelView: Encodable {
    let id: Int64
    let channelId: String
    let bundleId: String
    let environment: String
    let storagePolicy: String
    let status: String
    let games: [String]
    let createdAt: Date
    let deletedAt: Date?

    init(_ listing: ChannelListing) {
        id = listing.channel.id
        channelId = listing.channel.apnsChannelID
        bundleId = listing.bundleID
        environment = listing.environment.rawValue
        storagePolicy = RegistryNames.storagePolicy(listing.channel.storagePolicy)
        status = listing.channel.status.rawValue
        games = listing.gameIDs
        createdAt = listing.channel.createdAt
        deletedAt = listing.channel.deletedAt
    }
}

/// `channels ensure --json`.
struct EnsureView: Encodable {
    struct Result: Encodable {
        let bundleId: String
        let environment: String
        let outcome: String
        let channel: ChannelView?
        let error: String?
    }

    let game: String
    let results: [Result]
    let warnings: [String]

    init(_ report: EnsureReport) {
        game = report.gameID
        warnings = report.warnings
        results = report.results.map { result in
            let bundle = result.app.bundleID, environment = result.app.environment.rawValue
            return switch result.outcome {
            case .created(let listing): Result(bundleId: bundle, environment: environment, outcome: "created", channel: ChannelView(listing), error: nil)
            case .existing(let listing): Result(bundleId: bundle, environment: environment, outcome: "exists", channel: ChannelView(listing), error: nil)
            case .skippedPaused(let reason): Result(bundleId: bundle, environment: environment, outcome: "paused", channel: nil, error: reason)
            case .optedOut: Result(bundleId: bundle, environment: environment, outcome: "opted-out", channel: nil, error: nil)
            case .failed(let error): Result(bundleId: bundle, environment: environment, outcome: "failed", channel: nil, error: error.message)
            }
        }
    }
}

/// `channels reconcile --json`.
struct ReconcileView: Encodable {
    struct Orphan: Encodable {
        let channelId: String
        let registryStatus: String?
        let recorded: Bool
        let deleted: Bool?
        let error: String?
    }

    struct Gone: Encodable {
        let id: Int64
        let channelId: String
        let status: String
    }

    let bundleId: String
    let environment: String
    let apnsChannels: Int
    let registryLive: Int
    let clean: Bool
    let fixed: Bool
    let orphans: [Orphan]
    let gone: [Gone]
    let settledOrphanRecords: [String]

    init(_ report: ReconcileReport) {
        bundleId = report.app.bundleID
        environment = report.app.environment.rawValue
        apnsChannels = report.apnsChannelCount
        registryLive = report.registryLiveCount
        clean = report.isClean
        fixed = report.fixed
        let deleted = Set(report.deletedOrphans)
        let failed = Dictionary(report.failedOrphans.map { ($0.apnsChannelID, $0.message) }, uniquingKeysWith: { first, _ in first })
        orphans = report.diff.orphans.map {
            Orphan(channelId: $0.apnsChannelID, registryStatus: $0.registryStatus?.rawValue, recorded: $0.recorded,
                   deleted: report.fixed ? deleted.contains($0.apnsChannelID) : nil, error: failed[$0.apnsChannelID])
        }
        gone = report.diff.gone.map { Gone(id: $0.id, channelId: $0.apnsChannelID, status: $0.status.rawValue) }
        settledOrphanRecords = report.diff.settledOrphanRecords
    }
}
