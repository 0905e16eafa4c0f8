import Clocks
import Devices
import Foundation
import Registry
import ScorecastCore

/// The device side's commands: `apps client-key` (the iOS app's key for the app API) and
/// `games start-activities` (kick-off fan-out now).
enum DeviceCommands {
    static let all: [CommandDefinition] = [clientKey, startActivities, lightChannel]

    static let clientKey = CommandDefinition(
        ["apps", "client-key"], summary: "Create, list or revoke an iOS app's client key for the app API",
        options: [
            .value("name", "NAME", "the key's name (1–64 of A-Z a-z 0-9 . _ -), e.g. ios-2026"),
            .flag("revoke", "revoke the key NAME: the app's requests with it fail from now on"),
            .flag("list", "list the app's keys (never their secrets)"),
            .json,
        ],
        positionals: ["BUNDLE"],
        details: """
            The key is printed once and only its SHA-256 hash is stored. The app sends it as
            `Authorization: Bearer <key>` on every /v1/apps/BUNDLE/… request. One key serves both APNs
            environments (a device says its environment when it registers).

            Example:
              scorecast apps client-key com.example.scores --name ios-2026
            """
    ) { arguments, context in
        guard arguments.positionals.count == 1, let bundleID = arguments.positionals.first else {
            throw CommandError.usage("give exactly one bundle id, e.g. com.example.scores")
        }
        try AppsCommands.checked { try AppValidation.checkBundleID(bundleID, option: "the bundle id") }
        let json = arguments.flag("json")
        let name = arguments.value("name")
        guard name != nil || arguments.flag("list") else { throw CommandError.usage("missing --name NAME (or --list)") }
        try await RegistryCLI.run(context, "apps") { cli in
            let store = ClientKeyStore(pool: cli.pool)
            guard let name, !arguments.flag("list") else {
                let keys = try await store.all(bundleID: bundleID)
                if json {
                    try cli.terminal.json(keys.map { ["name": $0.name, "prefix": $0.prefix, "revoked": $0.revokedAt == nil ? "no" : "yes"] })
                    return
                }
                var table = TextTable(["name", "prefix", "status", "created"])
                for key in keys {
                    table.add([key.name, key.prefix, key.revokedAt == nil ? "active" : "revoked", ISO8601DateFormatter().string(from: key.createdAt)])
                }
                cli.terminal.print(keys.isEmpty ? "no client keys for \(bundleID)\n" : table.render())
                return
            }
            if arguments.flag("revoke") {
                guard let revoked = try await store.revoke(bundleID: bundleID, name: name) else {
                    throw CommandError.notFound("\(bundleID) has no client key named \(name)")
                }
                cli.terminal.line("revoked client key \(revoked.name) of \(bundleID) (\(revoked.prefix))")
                return
            }
            guard !(try await cli.apps.find(bundleID: bundleID)).isEmpty else {
                throw CommandError.notFound("no app \(bundleID): add it first with `scorecast apps add`")
            }
            let (record, token) = try await store.create(bundleID: bundleID, name: name)
            if json {
                try cli.terminal.json(["bundleId": bundleID, "name": record.name, "prefix": record.prefix, "key": token.text])
                return
            }
            cli.terminal.line("""
                Created client key \(record.name) for \(bundleID). It is shown only this once: store it now.
                  key: \(token.text)
                The app sends it as `Authorization: Bearer <key>` to /v1/apps/\(bundleID)/….
                """)
        }
    }

    static let startActivities = CommandDefinition(
        ["games", "start-activities"], summary: "Start the game's Live Activities now (push-to-start to every follower)",
        options: [.json],
        positionals: ["GAME"],
        details: """
            Records the game's kick-off; a running `scorecast serve` (worker role) plans one push-to-start
            for every device that follows either team, the league or the game and has no activity for
            it yet, chunk by chunk while it sends them, paced by SCORECAST_START_RATE_PER_SECOND.
            Progress: GET /v1/stats/devices. Safe to repeat: a repeat plans again for devices that
            followed since, and no device is started twice.
            """
    ) { arguments, context in
        guard arguments.positionals.count == 1, let gameID = arguments.positionals.first else {
            throw CommandError.usage("give exactly one game id")
        }
        try AppsCommands.checked { try GameDraft.checkID(gameID, option: "the game id") }
        try await RegistryCLI.run(context, "games") { cli in
            guard try await cli.games.find(id: gameID) != nil else { throw CommandError.notFound("there is no game \(gameID)") }
            let new = try await KickoffStore(pool: cli.pool).begin(gameID: gameID, trigger: .command, now: SystemServiceClock().now())
            if arguments.flag("json") {
                try cli.terminal.json(KickoffRecorded(game: gameID, new: new))
                return
            }
            cli.terminal.line(new
                ? "kick-off of \(gameID) recorded; `scorecast serve` plans and sends a push-to-start to every following device"
                : "kick-off of \(gameID) recorded before; `scorecast serve` plans again for devices that followed since")
        }
    }

    static let lightChannel = CommandDefinition(
        ["games", "light-channel"], summary: "Create the game's lighter channel, for devices with frequent updates off",
        options: [
            .value("app", "BUNDLE", required: true, "the app's bundle id"),
            .environment,
            .json,
        ],
        positionals: ["GAME"],
        details: """
            A second broadcast channel for the game (tier `light`): it gets every update, but priority 10
            only for kick-off, goals and full time. Devices whose user turned frequent updates off are
            handed it by GET /v1/games/{id}?frequent-updates=false and in their push-to-start.
            """
    ) { arguments, context in
        guard arguments.positionals.count == 1, let gameID = arguments.positionals.first else {
            throw CommandError.usage("give exactly one game id")
        }
        try AppsCommands.checked { try GameDraft.checkID(gameID, option: "the game id") }
        let appName = try RegistryCLI.appNamed(arguments)
        try await RegistryCLI.run(context, "channels") { cli in
            let app = try await cli.app(appName)
            let light = try await cli.withChannelRegistry { registry, _ in try await registry.lightChannel(gameID: gameID, app: app) }
            let channel = light.listing.channel
            if let warning = light.limitWarning { cli.terminal.error("warning: \(warning)") }
            if arguments.flag("json") {
                try cli.terminal.json(["game": gameID, "channelId": channel.apnsChannelID, "tier": "light"])
                return
            }
            cli.terminal.line("\(light.alreadyExisted ? "light channel exists" : "created light channel") \(channel.apnsChannelID) "
                + "for \(gameID) (\(appName.bundleID), \(app.environment.rawValue))")
        }
    }

    /// `games start-activities --json`: whether the kick-off was recorded now (`new`) or before.
    struct KickoffRecorded: Encodable {
        let game: String
        let new: Bool
    }
}
