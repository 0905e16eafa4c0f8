import APNsCore
/// The alert texts of every event kind: localization keys with their English format strings and
/// arguments, so the phone localizes (`loc-key`/`loc-args`) and the server can fall back to
/// plain text from the same source.
///
/// Each kind has title variants tried in order: the first whose arguments are all known and whose
/// condition (own goal, penalty, card colour) holds wins ("12' Goal: Bell (Northbridge United)",
/// "40' Own goal by Demiral, goal for Italy", "74' Red card: Hale (Castleford City)"; without a
/// minute or player, "Arsenal scores").
/// The body is the score line. Titles and bodies are made only of catalog keys and structured
/// arguments (team, player short name, minute, score), never of the feed's free-text
/// description, so a phone in any language reads its own language; the description stays in
/// the content-state (`lastEvent.text`) for the app's own use.
/// ``stringCatalog`` is the String Catalog shipped in the app (the `ScorecastActivity` package's
/// `Localizable.xcstrings`, checked by a test to be this very text), in English and every language
/// of ``translations``. Formats with more than one argument number them (`%1$@`, `%2$@`) so a
/// translation may reorder them.
public enum AlertCatalog {
    /// A value an alert format can use.
    public enum Argument: String, Sendable, Hashable, CaseIterable {
        /// Home team name.
        case home
        /// Away team name.
        case away
        /// The event's team name.
        case team
        /// The event's player.
        case player
        /// Home score.
        case homeScore
        /// Away score.
        case awayScore
        /// Period label.
        case period
        /// Clock label.
        case clock
        /// The match minute of the play (`67'`, `45+2'`), for sports that count minutes.
        case minute

        /// What the argument is, for a translator.
        public var translatorNote: String {
            switch self {
            case .home: "home team name"
            case .away: "away team name"
            case .team: "name of the team concerned"
            case .player: "player's short name (Saka)"
            case .homeScore: "home team's score"
            case .awayScore: "away team's score"
            case .period: "period label (1H, Q3)"
            case .clock: "clock reading (67', 8:42)"
            case .minute: "match minute (67', 45+2')"
            }
        }
    }

    /// What must hold of the event for a variant to be used.
    public enum Condition: String, Sendable, Hashable, CaseIterable {
        /// An own goal.
        case ownGoal
        /// A goal from the penalty spot.
        case penaltyGoal
        /// A yellow card.
        case yellowCard
        /// A second yellow card (sent off).
        case secondYellowCard
        /// A red card.
        case redCard
        /// A video review that takes back an earlier goal.
        case goalDisallowed
    }

    /// One localizable string: key, English format (`%@`, or `%1$@`… with several arguments),
    /// arguments.
    public struct Template: Sendable, Hashable {
        /// The `loc-key`.
        public var key: String
        /// The English format string: `%@` stands for the one argument, `%n$@` for argument n.
        public var format: String
        /// The `loc-args`, in order.
        public var arguments: [Argument]
        /// Used only for events where this holds; `nil`: for any event.
        public var condition: Condition?
        /// Where and when the text shows, for a translator.
        public var shows: String
    }

    private static func template(
        _ key: String, _ format: String, _ arguments: [Argument] = [], when condition: Condition? = nil, shows: String
    ) -> Template {
        Template(key: key, format: format, arguments: arguments, condition: condition, shows: shows)
    }

    /// Title variants by kind, most specific first; the last needs nothing optional.
    public static let titles: [EventKind: [Template]] = [
        .scheduled: [template("SCHEDULED_TITLE", "%1$@ vs %2$@ is scheduled", [.home, .away], shows: "Alert title when a game is put on the schedule.")],
        .start: [template("START_TITLE", "%1$@ vs %2$@ has started", [.home, .away], shows: "Alert title when the game begins (kick-off, tip-off, first pitch).")],
        .score: [
            template("SCORE_OWN_GOAL_MINUTE_TITLE", "%1$@ Own goal by %2$@, goal for %3$@", [.minute, .player, .team], when: .ownGoal,
                     shows: "Alert title for an own goal; the player plays for the other side, the team is the one credited."),
            template("SCORE_OWN_GOAL_TITLE", "Own goal by %1$@, goal for %2$@", [.player, .team], when: .ownGoal,
                     shows: "Alert title for an own goal, minute unknown; the team is the one credited."),
            template("SCORE_OWN_GOAL_TEAM_TITLE", "Own goal: goal for %@", [.team], when: .ownGoal,
                     shows: "Alert title for an own goal, player unknown; the team is the one credited."),
            template("SCORE_PENALTY_MINUTE_TITLE", "%1$@ Penalty goal: %2$@ (%3$@)", [.minute, .player, .team], when: .penaltyGoal,
                     shows: "Alert title for a goal scored from the penalty spot."),
            template("SCORE_PENALTY_TITLE", "Penalty goal: %1$@ (%2$@)", [.player, .team], when: .penaltyGoal,
                     shows: "Alert title for a goal scored from the penalty spot, minute unknown."),
            template("SCORE_PLAYER_MINUTE_TITLE", "%1$@ Goal: %2$@ (%3$@)", [.minute, .player, .team],
                     shows: "Alert title for a goal, with its minute and scorer."),
            template("SCORE_PLAYER_TITLE", "%1$@ scores for %2$@", [.player, .team],
                     shows: "Alert title when a player scores, minute unknown (any sport)."),
            template("SCORE_TEAM_TITLE", "%@ scores", [.team], shows: "Alert title when a team scores, player unknown (any sport)."),
            template("SCORE_TITLE", "Score update", shows: "Alert title when the score changes and the team is unknown."),
        ],
        .period: [
            template("PERIOD_TITLE", "Period: %@", [.period], shows: "Alert title when a new period begins (half, quarter, inning)."),
            template("PERIOD_CHANGE_TITLE", "New period", shows: "Alert title when a new period begins, its label unknown."),
        ],
        .clock: [
            template("CLOCK_TITLE", "Clock: %@", [.clock], shows: "Alert title of a clock correction the feed marked as alerting."),
            template("CLOCK_UPDATE_TITLE", "Clock update", shows: "Alert title of a clock correction, reading unknown."),
        ],
        .card: [
            template("CARD_RED_MINUTE_TITLE", "%1$@ Red card: %2$@ (%3$@)", [.minute, .player, .team], when: .redCard,
                     shows: "Alert title when a player is shown a straight red card."),
            template("CARD_RED_TITLE", "Red card: %1$@ (%2$@)", [.player, .team], when: .redCard,
                     shows: "Alert title for a straight red card, minute unknown."),
            template("CARD_RED_TEAM_TITLE", "Red card for %@", [.team], when: .redCard, shows: "Alert title for a straight red card, player unknown."),
            template("CARD_SECOND_YELLOW_MINUTE_TITLE", "%1$@ Second yellow, sent off: %2$@ (%3$@)", [.minute, .player, .team], when: .secondYellowCard,
                     shows: "Alert title when a player is sent off for a second yellow card."),
            template("CARD_SECOND_YELLOW_TITLE", "Second yellow, sent off: %1$@ (%2$@)", [.player, .team], when: .secondYellowCard,
                     shows: "Alert title for a sending-off for a second yellow card, minute unknown."),
            template("CARD_SECOND_YELLOW_TEAM_TITLE", "Second yellow, sent off: %@", [.team], when: .secondYellowCard,
                     shows: "Alert title for a sending-off for a second yellow card, player unknown."),
            template("CARD_YELLOW_MINUTE_TITLE", "%1$@ Yellow card: %2$@ (%3$@)", [.minute, .player, .team], when: .yellowCard,
                     shows: "Alert title for a yellow card (only when the feed asks for an alert)."),
            template("CARD_YELLOW_TITLE", "Yellow card: %1$@ (%2$@)", [.player, .team], when: .yellowCard,
                     shows: "Alert title for a yellow card, minute unknown."),
            template("CARD_YELLOW_TEAM_TITLE", "Yellow card for %@", [.team], when: .yellowCard, shows: "Alert title for a yellow card, player unknown."),
            template("CARD_PLAYER_TITLE", "Card for %1$@ (%2$@)", [.player, .team], shows: "Alert title for a card of unknown colour."),
            template("CARD_TEAM_TITLE", "Card for %@", [.team], shows: "Alert title for a card of unknown colour, player unknown."),
            template("CARD_TITLE", "Card shown", shows: "Alert title for a card, player and team unknown."),
        ],
        .substitution: [
            template("SUBSTITUTION_PLAYER_TITLE", "Substitution for %1$@: %2$@", [.team, .player],
                     shows: "Alert title for a substitution, with the player the feed names."),
            template("SUBSTITUTION_TEAM_TITLE", "Substitution for %@", [.team], shows: "Alert title for a substitution, player unknown."),
            template("SUBSTITUTION_TITLE", "Substitution", shows: "Alert title for a substitution, team unknown."),
        ],
        .videoReview: [
            template("GOAL_DISALLOWED_PLAYER_TITLE", "Goal disallowed: %1$@ (%2$@)", [.player, .team], when: .goalDisallowed,
                     shows: "Alert title when a video review takes back a goal already announced; the player is its scorer."),
            template("GOAL_DISALLOWED_TEAM_TITLE", "%@ goal disallowed", [.team], when: .goalDisallowed,
                     shows: "Alert title when a video review takes back a goal, scorer unknown; the team is the one that loses it."),
            template("GOAL_DISALLOWED_TITLE", "Goal disallowed", when: .goalDisallowed,
                     shows: "Alert title when a video review takes back a goal, team unknown."),
            template("VAR_TITLE", "Video review", shows: "Alert title of any other video review (VAR, replay review)."),
        ],
        .penalty: [
            template("PENALTY_TEAM_TITLE", "Penalty for %@", [.team], shows: "Alert title when a penalty is awarded to a team."),
            template("PENALTY_TITLE", "Penalty", shows: "Alert title when a penalty is awarded, team unknown."),
        ],
        .timeout: [
            template("TIMEOUT_TEAM_TITLE", "Timeout: %@", [.team], shows: "Alert title when a team calls a timeout."),
            template("TIMEOUT_TITLE", "Timeout", shows: "Alert title of a timeout, team unknown."),
        ],
        .stats: [template("STATS_TITLE", "Stats update", shows: "Alert title of a statistics update the feed marked as alerting.")],
        .suspended: [template("SUSPENDED_TITLE", "%1$@ vs %2$@ suspended", [.home, .away], shows: "Alert title when play is halted (weather, crowd trouble).")],
        .resumed: [template("RESUMED_TITLE", "%1$@ vs %2$@ resumed", [.home, .away], shows: "Alert title when a halted game starts again.")],
        .final: [template("FINAL_TITLE", "Final: %1$@ vs %2$@", [.home, .away], shows: "Alert title when the game is over (full time); the body gives the final score.")],
        .cancelled: [template("CANCELLED_TITLE", "%1$@ vs %2$@ called off", [.home, .away], shows: "Alert title when the game is cancelled or abandoned.")],
    ]

    /// Body variants, most specific first.
    public static let bodies: [Template] = [
        template("SCORELINE_BODY", "%1$@ %2$@–%3$@ %4$@", [.home, .homeScore, .awayScore, .away],
                 shows: "Alert body under every title: the score line, home team first (Arsenal 2–1 Chelsea)."),
    ]

    /// Every template, sorted by key.
    public static var allTemplates: [Template] {
        (titles.values.flatMap { $0 } + bodies).sorted { $0.key < $1.key }
    }

    /// The alert for `kind`, with arguments taken from `values` (missing or empty ones make a
    /// variant unusable) and `conditions` holding of the event.
    public static func alert(
        for kind: EventKind, values: [Argument: String], conditions: Set<Condition> = [], style: AlertStyle, sound: String?
    ) -> LiveActivityAlert {
        let title = pick(titles[kind] ?? [], values: values, conditions: conditions)
        let body = pick(bodies, values: values, conditions: conditions)
        return LiveActivityAlert(
            title: title.map { text(of: $0, values: values, style: style) },
            body: body.map { text(of: $0, values: values, style: style) },
            sound: sound
        )
    }

    static func pick(_ variants: [Template], values: [Argument: String], conditions: Set<Condition> = []) -> Template? {
        variants.first { variant in
            variant.condition.map(conditions.contains) ?? true && variant.arguments.allSatisfy { !(values[$0] ?? "").isEmpty }
        }
    }

    /// The conditions that hold of `event`.
    public static func conditions(of event: FeedEvent) -> Set<Condition> {
        var conditions: Set<Condition> = []
        if event.kind == .score, event.ownGoal == true { conditions.insert(.ownGoal) }
        if event.kind == .score, event.penalty == true { conditions.insert(.penaltyGoal) }
        if event.kind == .videoReview, event.disallows != nil { conditions.insert(.goalDisallowed) }
        switch event.card {
        case .yellow?: conditions.insert(.yellowCard)
        case .secondYellow?: conditions.insert(.secondYellowCard)
        case .red?: conditions.insert(.redCard)
        case nil: break
        }
        return conditions
    }

    static func text(of template: Template, values: [Argument: String], style: AlertStyle) -> AlertText {
        let arguments = template.arguments.map { values[$0] ?? "" }
        switch style {
        case .localized:
            return .localized(key: template.key, arguments: arguments)
        case .plainText:
            return .plain(fill(template.format, with: arguments))
        }
    }

    /// Replaces each `%@` in `format` with the next argument and each `%n$@` with argument n,
    /// as `String(format:)` would.
    static func fill(_ format: String, with arguments: [String]) -> String {
        var result = ""
        var next = 0
        var rest = Substring(format)
        while let percent = rest.firstIndex(of: "%") {
            result += rest[..<percent]
            let spec = rest[rest.index(after: percent)...]
            if spec.hasPrefix("@") {
                result += next < arguments.count ? arguments[next] : ""
                next += 1
                rest = spec.dropFirst()
            } else if let dollar = spec.firstIndex(of: "$"), let number = Int(spec[..<dollar]),
                spec[spec.index(after: dollar)...].hasPrefix("@") {
                result += (1...arguments.count).contains(number) ? arguments[number - 1] : ""
                rest = spec[spec.index(dollar, offsetBy: 2)...]
            } else {
                result += "%"
                rest = spec
            }
        }
        return result + rest
    }
}

extension String {
    /// Every occurrence of `target` replaced (Foundation-free).
    func replacingAll(_ target: String, with replacement: String) -> String {
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
