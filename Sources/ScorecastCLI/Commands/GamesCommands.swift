import Foundation
import Registry
import ScorecastCore

/// `scorecast games add|list|show`: the games channels are made for. Feeds usually create
/// games themselves through ingest; these commands are for setting one up by hand.
enum GamesCommands {
    static let all: [CommandDefinition] = [add, list, show]

    static let add = CommandDefinition(
        ["games", "add"], summary: "Add a game",
        options: [
            .value("id", "ID", required: true, "the feed's game id (letters, digits, . _ : -)"),
            .value("league", "NAME", required: true, "the league, e.g. \"Premier League\""),
            .value("home", "TEAM", required: true, "the home team"),
            .value("away", "TEAM", required: true, "the away team"),
            .value("starts-at", "TIME", required: true, "the scheduled start, RFC 3339 (2025-11-29T20:00:00Z)"),
            .value("sport", "SPORT", "the sport (default football)"),
            .value("home-code", "CODE", "the home team's 3-letter code (default: the feed's, else from its name, Arsenal: ARS)"),
            .value("away-code", "CODE", "the away team's 3-letter code (default: the feed's, else from its name)"),
            .value("home-colours", "HEX[,HEX]", "the home team's primary and secondary colours (default: the feed's, else grey and white)"),
            .value("away-colours", "HEX[,HEX]", "the away team's primary and secondary colours (default: the feed's, else grey and white)"),
            .json,
        ],
        details: """
            Example:
              scorecast games add --id epl-2025-ars-che --league "Premier League" \\
                --home Arsenal --away Chelsea --starts-at 2025-11-29T17:30:00Z \\
                --home-code ARS --home-colours "#EF0107,#FFFFFF" --away-colours "#034694,#FFFFFF"
            """
    ) { arguments, context in
        let startsText = try arguments.required("starts-at")
        guard let startsAt = RFC3339.parse(startsText) else {
            throw CommandError.usage("--starts-at must be an RFC 3339 time such as 2025-11-29T20:00:00Z, got \"\(startsText)\"")
        }
        var draft = GameDraft(
            id: try arguments.required("id"), league: try arguments.required("league"), sport: arguments.value("sport") ?? "football",
            homeTeam: try arguments.required("home"), awayTeam: try arguments.required("away"), startsAt: startsAt)
        try AppsCommands.checked {
            draft.homeIdentity = try TeamIdentity.parse(side: "home", code: arguments.value("home-code"), colours: arguments.value("home-colours"))
            draft.awayIdentity = try TeamIdentity.parse(side: "away", code: arguments.value("away-code"), colours: arguments.value("away-colours"))
            try draft.validate()
        }
        try await RegistryCLI.run(context, "games") { cli in
            let game = try await cli.games.add(draft)
            try printGame(cli, game, channels: [], json: arguments.flag("json"))
        }
    }

    static let list = CommandDefinition(
        ["games", "list"], summary: "List games",
        options: [.value("status", "STATUS", "only scheduled, live, suspended or final games"), .json]
    ) { arguments, context in
        let status = try arguments.choice("status", from: RegistryNames.gameStatuses)
        try await RegistryCLI.run(context, "games") { cli in
            let games = try await cli.games.list(status: status)
            if arguments.flag("json") {
                try cli.terminal.json(games.map { GameView($0, channels: nil) })
                return
            }
            guard !games.isEmpty else {
                cli.terminal.line(status == nil ? "no games yet: add one with `scorecast games add`" : "no \(status ?? "") games")
                return
            }
            var table = TextTable(["id", "league", "match", "starts", "status", "score", "last event"])
            for game in games {
                table.add([
                    game.id, game.league, "\(game.homeTeam) – \(game.awayTeam)", RegistryCLI.time(game.startsAt), game.status,
                    game.state.map { "\($0.homeScore)–\($0.awayScore)" } ?? "-", RegistryCLI.time(game.lastEventAt),
                ])
            }
            cli.terminal.print(table.render())
        }
    }

    static let show = CommandDefinition(
        ["games", "show"], summary: "Show a game: state, channels, last event",
        options: [.json], positionals: ["ID"]
    ) { arguments, context in
        guard arguments.positionals.count == 1, let id = arguments.positionals.first else {
            throw CommandError.usage("give exactly one game id")
        }
        try AppsCommands.checked { try GameDraft.checkID(id, option: "the game id") }
        try await RegistryCLI.run(context, "games") { cli in
            guard let game = try await cli.games.find(id: id) else {
                throw RegistryError(.notFound, "no game \(id) (see `scorecast games list`)")
            }
            let channels = try await cli.channels.list(ChannelStore.Filter(gameID: id))
            try printGame(cli, game, channels: channels, json: arguments.flag("json"))
        }
    }

    private static func printGame(_ cli: RegistryCLI, _ game: GameRecord, channels: [ChannelListing], json: Bool) throws {
        let view = GameView(game, channels: channels)
        if json {
            try cli.terminal.json(view)
            return
        }
        var table = TextTable(["field", "value"])
        table.add(["id", game.id])
        table.add(["league", game.league])
        table.add(["sport", game.sport])
        table.add(["match", "\(game.homeTeam) – \(game.awayTeam)"])
        for (side, team) in [("home", view.home), ("away", view.away)] {
            table.add(["\(side) identity", "\(team.code) \(team.primaryColour) \(team.secondaryColour)"])
        }
        table.add(["starts", RegistryCLI.time(game.startsAt)])
        table.add(["status", game.status])
        if let state = game.state {
            table.add(["score", "\(state.homeScore)–\(state.awayScore)"])
            table.add(["period", state.period ?? "-"])
            table.add(["clock", state.clock ?? "-"])
            if let last = state.lastEvent {
                table.add(["last event", "\(last.kind.rawValue) at \(RegistryCLI.time(last.occurredAt))" + (last.description.map { ": \($0)" } ?? "")])
            }
        } else {
            table.add(["score", "no events yet"])
        }
        table.add(["applied seq", String(game.appliedSeq)])
        cli.terminal.print(table.render())
        guard !channels.isEmpty else {
            cli.terminal.line("\nno channels: create them with `scorecast channels create --game \(game.id) --app BUNDLE` or `channels ensure`")
            return
        }
        cli.terminal.line("\nchannels:")
        cli.terminal.print(ChannelsCommands.table(channels).render())
    }
}

/// A game as `games` commands print it in JSON.
struct GameView: Encodable {
    struct State: Encodable {
        let homeScore: Int
        let awayScore: Int
        let period: String?
        let clock: String?
    }

    struct Identity: Encodable {
        let code: String
        let primaryColour: String
        let secondaryColour: String

        init(_ game: GameRecord, _ side: TeamSide) {
            let team = game.team(side)
            code = team.code
            primaryColour = team.primary
            secondaryColour = team.secondary
        }
    }

    struct LastEvent: Encodable {
        let id: String
        let kind: String
        let occurredAt: Date
        let description: String?
    }

    let id: String
    let league: String
    let sport: String
    let homeTeam: String
    let awayTeam: String
    /// Each team's code and colours as the Live Activity gets them (registered, else the
    /// feed's, else fallen back).
    let home: Identity
    let away: Identity
    let startsAt: Date?
    let status: String
    let state: State?
    let lastEvent: LastEvent?
    let appliedSeq: Int64
    let channels: [ChannelView]?

    init(_ game: GameRecord, channels: [ChannelListing]?) {
        id = game.id
        league = game.league
        sport = game.sport
        homeTeam = game.homeTeam
        awayTeam = game.awayTeam
        home = Identity(game, .home)
        away = Identity(game, .away)
        startsAt = game.startsAt
        status = game.status
        state = game.state.map { State(homeScore: $0.homeScore, awayScore: $0.awayScore, period: $0.period, clock: $0.clock) }
        lastEvent = game.state?.lastEvent.map {
            LastEvent(id: $0.id, kind: $0.kind.rawValue, occurredAt: $0.occurredAt, description: $0.description)
        }
        appliedSeq = game.appliedSeq
        self.channels = channels?.map(ChannelView.init)
    }
}
