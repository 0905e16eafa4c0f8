import APNsCore
import Arguments
import Demo
import Foundation
import Registry
import ScorecastCore
import Server
import ServiceBase

/// `scorecast apps add|list|show|update`: the iOS apps scorecast sends for, with their APNs
/// credentials (the key's path only) and delivery settings.
enum AppsCommands {
    static let all: [CommandDefinition] = [add, list, show, update, resume]

    /// The settings options `add` and `update` share.
    private static let settingOptions: [OptionSpec] = [
        .flag("frequent-updates", "the app declares NSSupportsLiveActivitiesFrequentUpdates (larger budget profile)"),
        .value("budget", "N", "priority-10 sends per channel per hour (0–10000; default: the profile's setting)"),
        .value("date-encoding", "ENC", "content-state dates: reference-date (default), unix-seconds or iso8601"),
        .value("dismissal-delay", "SECONDS", "how long an ended activity stays on the Lock Screen (0–14400, default 1800)"),
        .value("alert-style", "STYLE", "localized (loc-key, default) or plain"),
        .value("storage-policy", "POLICY", "policy of channels created for it: no-store (default) or most-recent"),
    ]

    static let add = CommandDefinition(
        ["apps", "add"], summary: "Register an iOS app and its APNs key",
        options: [
            .value("bundle-id", "BUNDLE", required: true, "the app's bundle id, e.g. com.example.scores"),
            .value("environment", "ENV", required: true, "sandbox (development builds) or production"),
            .value("team-id", "ID", "the 10-character Apple team id"),
            .value("key-id", "ID", "the 10-character id of the APNs auth key"),
            .value("key-file", "PATH", "the APNs auth key (.p8); only its path is stored"),
            .flag("generate-key", "built-in simulator only: create a key (and ids) and register it with the simulator"),
        ] + settingOptions + [
            .flag("no-auto-channels", "do not create a channel for every game automatically"),
            .json,
        ],
        details: """
            Everything is checked before anything is written: the bundle id's syntax, the 10-character
            team and key ids, and that the key file is a readable, unencrypted P-256 private key. The
            database keeps the key's absolute path, never the key.

            With the built-in APNs simulator (no SCORECAST_APNS_* hosts), --generate-key creates
            <state>/keys/<bundle>-<environment>.p8 (mode 0600), picks random team and key ids unless
            given, and registers the public key with the running simulator (or the next `serve` does).

            Example:
              scorecast apps add --bundle-id com.example.scores --environment sandbox --generate-key
            """
    ) { arguments, context in
        let bundleID = try arguments.required("bundle-id")
        try checked { try AppValidation.checkBundleID(bundleID) }
        guard let environment = try arguments.choice("environment", from: RegistryNames.environments).flatMap(APNsEnvironment.init(rawValue:)) else {
            throw CommandError.usage("missing --environment ENV")
        }
        var settings = try settingsChanges(arguments).applied(to: AppSettings())
        if arguments.flag("no-auto-channels") { settings.autoChannels = false }
        try checked { try settings.validate() }
        let configuration = try context.configuration()

        var teamID = arguments.value("team-id")
        var keyID = arguments.value("key-id")
        for (option, value) in [("--team-id", teamID), ("--key-id", keyID)] {
            if let value { try checked { try AppValidation.checkAppleID(value, option: option) } }
        }
        let generate = arguments.flag("generate-key")
        let keyPath: String
        if generate {
            guard arguments.value("key-file") == nil else { throw CommandError.usage("--generate-key and --key-file cannot be used together") }
            guard configuration.apns == .builtInSimulator else {
                throw CommandError.usage("--generate-key works only with the built-in simulator; for Apple's servers pass the key Apple issued with --key-file")
            }
            teamID = teamID ?? GeneratedSigningKey.randomAppleID()
            keyID = keyID ?? GeneratedSigningKey.randomAppleID()
            keyPath = GeneratedSigningKey.path(configuration, bundleID: bundleID, environment: environment)
            if FileManager.default.fileExists(atPath: keyPath) {
                throw CommandError.usage("\(keyPath) exists already: pass it with --key-file (and its --team-id/--key-id) instead of --generate-key")
            }
        } else {
            guard let keyFile = arguments.value("key-file") else {
                throw CommandError.usage("missing --key-file PATH (or --generate-key with the built-in simulator)")
            }
            guard teamID != nil else { throw CommandError.usage("missing --team-id ID") }
            guard keyID != nil else { throw CommandError.usage("missing --key-id ID") }
            keyPath = absolutePath(keyFile)
            _ = try checked { try CredentialStore.checkKeyFile(keyPath) }
        }
        let draft = AppDraft(
            bundleID: bundleID, environment: environment, teamID: teamID ?? "", keyID: keyID ?? "", keyPath: keyPath, settings: settings)
        try checked { try draft.validate() }

        try await RegistryCLI.run(context, "apps") { cli in
            if try await cli.apps.find(bundleID: bundleID, environment: environment) != nil {
                throw RegistryError(.alreadyExists, "app \(bundleID) already exists in \(environment) (change it with `scorecast apps update`)")
            }
            var publicKeyPEM: String?
            if generate {
                publicKeyPEM = try GeneratedSigningKey.write(to: keyPath)
            }
            let app: AppRecord
            do {
                app = try await cli.apps.add(draft)
            } catch {
                if generate { try? FileManager.default.removeItem(atPath: keyPath) }
                throw error
            }
            let note = await registerWithRunningSimulator(cli, app: app, publicKeyPEM: publicKeyPEM)
            try await printApp(cli, app, json: arguments.flag("json"), note: note)
        }
    }

    static let list = CommandDefinition(
        ["apps", "list"], summary: "List the registered apps", options: [.json]
    ) { arguments, context in
        try await RegistryCLI.run(context, "apps") { cli in
            let apps = try await cli.apps.all()
            var views: [AppView] = []
            for app in apps { views.append(AppView(app, channels: try await cli.channels.countAgainstLimit(appID: app.id), cli.configuration)) }
            if arguments.flag("json") {
                try cli.terminal.json(views)
                return
            }
            guard !views.isEmpty else {
                cli.terminal.line("no apps yet: add one with `scorecast apps add`")
                return
            }
            var table = TextTable(["bundle id", "env", "team", "key", "budget/h", "auto", "policy", "channels", "state"])
            for view in views {
                table.add([
                    view.bundleId, view.environment, view.teamId, view.keyId,
                    "\(view.budgetPerHour)\(view.budgetSetting == nil ? " (default)" : "")",
                    view.autoChannels ? "yes" : "no", view.defaultStoragePolicy,
                    "\(view.channels)/\(view.channelLimit)", view.paused.map { "paused: \($0)" } ?? "ok",
                ])
            }
            cli.terminal.print(table.render())
        }
    }

    static let show = CommandDefinition(
        ["apps", "show"], summary: "Show an app's settings and channel count",
        options: [.environment, .json], positionals: ["BUNDLE"]
    ) { arguments, context in
        let bundleID = try bundleArgument(arguments)
        try await RegistryCLI.run(context, "apps") { cli in
            let app = try await cli.apps.resolve(bundleID: bundleID, environment: try RegistryCLI.environment(arguments))
            try await printApp(cli, app, json: arguments.flag("json"), note: nil)
        }
    }

    static let update = CommandDefinition(
        ["apps", "update"], summary: "Change an app's credentials or settings",
        options: [
            .environment,
            .value("team-id", "ID", "a new team id"),
            .value("key-id", "ID", "a new key id"),
            .value("key-file", "PATH", "a new key file (.p8)"),
            .flag("no-frequent-updates", "the app no longer declares frequent updates"),
        ] + settingOptions + [
            .flag("auto-channels", "create a channel for every game automatically"),
            .flag("no-auto-channels", "stop creating channels automatically"),
            .json,
        ],
        positionals: ["BUNDLE"],
        details: """
            Only the options given change. --budget default returns to the profile's setting. A new
            storage policy applies to channels created from now on (APNs cannot change a channel's).

            New credentials (--team-id, --key-id, --key-file) are tried against APNs first with a
            call that changes nothing (listing the app's channels): if APNs refuses them nothing is
            written (exit 4); if it accepts them and the app was paused, the app is resumed.
            """
    ) { arguments, context in
        let bundleID = try bundleArgument(arguments)
        var changes = try settingsChanges(arguments)
        if arguments.flag("frequent-updates") && arguments.flag("no-frequent-updates") {
            throw CommandError.usage("--frequent-updates and --no-frequent-updates contradict each other")
        }
        if arguments.flag("no-frequent-updates") { changes.frequentUpdates = false }
        if arguments.flag("auto-channels") && arguments.flag("no-auto-channels") {
            throw CommandError.usage("--auto-channels and --no-auto-channels contradict each other")
        }
        if arguments.flag("auto-channels") { changes.autoChannels = true }
        if arguments.flag("no-auto-channels") { changes.autoChannels = false }
        changes.teamID = arguments.value("team-id")
        changes.keyID = arguments.value("key-id")
        changes.keyPath = arguments.value("key-file").map(absolutePath)
        guard !changes.isEmpty else { throw CommandError.usage("nothing to change: give at least one option (see --help)") }
        for (option, value) in [("--team-id", changes.teamID), ("--key-id", changes.keyID)] {
            if let value { try checked { try AppValidation.checkAppleID(value, option: option) } }
        }
        if let keyPath = changes.keyPath { _ = try checked { try CredentialStore.checkKeyFile(keyPath) } }
        try checked { try changes.applied(to: AppSettings()).validate() }

        try await RegistryCLI.run(context, "apps") { cli in
            let current = try await cli.apps.resolve(bundleID: bundleID, environment: try RegistryCLI.environment(arguments))
            let settings = changes.applied(to: AppSettings(current))
            let newCredentials = changes.teamID != nil || changes.keyID != nil || changes.keyPath != nil
            var note: String?
            if newCredentials {
                var candidate = current
                candidate.teamID = changes.teamID ?? current.teamID
                candidate.keyID = changes.keyID ?? current.keyID
                candidate.keyPath = changes.keyPath ?? current.keyPath
                // The built-in simulator learns the key first, as Apple knows an issued key.
                note = await registerWithRunningSimulator(cli, app: candidate, publicKeyPEM: nil)
                try await cli.withChannelRegistry { registry, _ in try await registry.checkCredentials(of: candidate) }
            }
            var app = try await cli.apps.update(
                id: current.id, teamID: changes.teamID ?? current.teamID, keyID: changes.keyID ?? current.keyID,
                keyPath: changes.keyPath ?? current.keyPath, settings: settings)
            if newCredentials {
                if app.pausedReason != nil {
                    _ = try await cli.withChannelRegistry { registry, _ in try await registry.resume(app) }
                    app.pausedReason = nil
                    note = [note, "APNs accepted the new credentials: sends for \(app.bundleID) (\(app.environment.rawValue)) are resumed"]
                        .compactMap { $0 }.joined(separator: "\n")
                }
            }
            try await printApp(cli, app, json: arguments.flag("json"), note: note)
        }
    }

    static let resume = CommandDefinition(
        ["apps", "resume"], summary: "Resume an app's sends after APNs refused its credentials",
        options: [
            .environment,
            .flag("no-check", "resume without first trying the credentials against APNs"),
            .json,
        ],
        positionals: ["BUNDLE"],
        details: """
            When APNs refuses an app's credentials (InvalidProviderToken, a revoked key…) its sends
            are PAUSED: its updates wait in the outbox. Fix the key first (`apps update BUNDLE
            --key-file …` tests the new key and resumes by itself), or replace the file in place and
            run this: the credentials are tried against APNs with a call that changes nothing
            (listing the app's channels), and the pause is lifted only if APNs accepts them (exit 4
            with APNs' reason otherwise). The waiting updates are then sent at once.

            Example:
              scorecast apps resume com.example.scores --environment production
            """
    ) { arguments, context in
        let bundleID = try bundleArgument(arguments)
        try await RegistryCLI.run(context, "apps") { cli in
            var app = try await cli.apps.resolve(bundleID: bundleID, environment: try RegistryCLI.environment(arguments))
            let resumed = try await cli.withChannelRegistry { registry, _ in
                if !arguments.flag("no-check") { try await registry.checkCredentials(of: app) }
                return try await registry.resume(app)
            }
            app.pausedReason = nil
            let note = resumed
                ? "resumed: sends for \(app.bundleID) (\(app.environment.rawValue)) start again"
                : "\(app.bundleID) (\(app.environment.rawValue)) was not paused; nothing changed"
            try await printApp(cli, app, json: arguments.flag("json"), note: note)
        }
    }

    // MARK: - Helpers

    /// The settings options as changes (nil: not given).
    private static func settingsChanges(_ arguments: ParsedArguments) throws(ArgumentError) -> AppChanges {
        var changes = AppChanges()
        if arguments.flag("frequent-updates") { changes.frequentUpdates = true }
        if let budget = arguments.value("budget") {
            if budget == "default" {
                changes.budgetPerHour = .some(nil)
            } else {
                changes.budgetPerHour = .some(try arguments.integer("budget", in: AppSettings.budgetRange))
            }
        }
        if let name = try arguments.choice("date-encoding", from: RegistryNames.dateEncodings) {
            changes.dateEncoding = RegistryNames.dateEncoding(named: name)
        }
        changes.dismissalDelaySeconds = try arguments.integer("dismissal-delay", in: AppSettings.dismissalRange)
        if let name = try arguments.choice("alert-style", from: RegistryNames.alertStyles) {
            changes.alertStyle = RegistryNames.alertStyle(named: name)
        }
        if let name = try arguments.choice("storage-policy", from: RegistryNames.storagePolicies) {
            changes.defaultStoragePolicy = RegistryNames.storagePolicy(named: name)
        }
        return changes
    }

    /// The one positional argument, a bundle id.
    private static func bundleArgument(_ arguments: ParsedArguments) throws -> String {
        guard arguments.positionals.count == 1, let bundleID = arguments.positionals.first else {
            throw CommandError.usage("give exactly one bundle id, e.g. com.example.scores")
        }
        try checked { try AppValidation.checkBundleID(bundleID, option: "the bundle id") }
        return bundleID
    }

    /// Runs a validation, turning its `RegistryError` into a usage error.
    @discardableResult
    static func checked<T>(_ body: () throws -> T) throws(CommandError) -> T {
        do {
            return try body()
        } catch {
            throw RegistryCLI.commandError(error)
        }
    }

    /// `path` made absolute against the working directory.
    static func absolutePath(_ path: String) -> String {
        let url = path.hasPrefix("/")
            ? URL(fileURLWithPath: path)
            : URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(path)
        return url.standardizedFileURL.path
    }

    /// With the built-in simulator, registers the app's key with the running simulator; returns
    /// a note for the user (nil when APNs is remote).
    static func registerWithRunningSimulator(_ cli: RegistryCLI, app: AppRecord, publicKeyPEM: String?) async -> String? {
        guard cli.configuration.apns == .builtInSimulator else { return nil }
        switch await BuiltInSimulatorAdmin.registerWithRunningSimulator(
            app, publicKeyPEM: publicKeyPEM, stateDirectory: cli.configuration.stateDirectory) {
        case .registered:
            return "registered with the running built-in simulator"
        case .notRunning:
            return "the built-in simulator is not running: the next `scorecast serve` registers this app's key"
        case .keyUnreadable:
            return "the key could not be read to register it with the simulator"
        case .failed(let reason):
            return "could not register with the running simulator (\(reason)); the next `scorecast serve` does"
        }
    }

    /// Prints one app (table of fields, or JSON) with its channel count against the limit.
    static func printApp(_ cli: RegistryCLI, _ app: AppRecord, json: Bool, note: String?) async throws {
        let view = AppView(app, channels: try await cli.channels.countAgainstLimit(appID: app.id), cli.configuration)
        if let note { cli.terminal.error("note: \(note)") }
        if json {
            try cli.terminal.json(view)
            return
        }
        var table = TextTable(["field", "value"])
        table.add(["bundle id", view.bundleId])
        table.add(["environment", view.environment])
        table.add(["team id", view.teamId])
        table.add(["key id", view.keyId])
        table.add(["key file", view.keyPath + (view.keyReadable ? "" : "  (cannot be read!)")])
        table.add(["frequent updates", view.frequentUpdates ? "yes" : "no"])
        table.add(["budget per hour", "\(view.budgetPerHour)" + (view.budgetSetting == nil ? " (profile default)" : "")])
        table.add(["date encoding", view.dateEncoding])
        table.add(["dismissal delay", "\(view.dismissalDelaySeconds) s"])
        table.add(["alert style", view.alertStyle])
        table.add(["auto channels", view.autoChannels ? "yes" : "no"])
        table.add(["storage policy", view.defaultStoragePolicy])
        table.add(["channels", ChannelLimit.usage(view.channels, of: view.channelLimit)])
        table.add(["state", view.paused.map { "paused: \($0)" } ?? "ok"])
        table.add(["created", RegistryCLI.time(app.createdAt)])
        cli.terminal.print(table.render())
    }
}

/// An app as `apps` commands print it in JSON.
struct AppView: Encodable {
    let id: Int64
    let bundleId: String
    let environment: String
    let teamId: String
    let keyId: String
    let keyPath: String
    let keyReadable: Bool
    let frequentUpdates: Bool
    /// The budget in force (the app's own, or the profile default).
    let budgetPerHour: Int
    /// The app's own budget setting; nil means the profile default.
    let budgetSetting: Int?
    let dateEncoding: String
    let dismissalDelaySeconds: Int
    let alertStyle: String
    let autoChannels: Bool
    let defaultStoragePolicy: String
    let paused: String?
    /// Live channels and recorded orphans: what counts against the limit.
    let channels: Int
    let channelLimit: Int
    let createdAt: Date

    init(_ app: AppRecord, channels: Int, _ configuration: Configuration) {
        id = app.id
        bundleId = app.bundleID
        environment = app.environment.rawValue
        teamId = app.teamID
        keyId = app.keyID
        keyPath = app.keyPath
        keyReadable = FileManager.default.isReadableFile(atPath: app.keyPath)
        frequentUpdates = app.frequentUpdates
        budgetPerHour = app.budget(configuration)
        budgetSetting = app.budgetPerHour
        dateEncoding = RegistryNames.dateEncoding(app.dateEncoding)
        dismissalDelaySeconds = app.dismissalDelaySeconds
        alertStyle = RegistryNames.alertStyle(app.alertStyle)
        autoChannels = app.autoChannels
        defaultStoragePolicy = RegistryNames.storagePolicy(app.defaultStoragePolicy)
        paused = app.pausedReason
        self.channels = channels
        channelLimit = configuration.channelLimit
        createdAt = app.createdAt
    }
}
