/// The alert texts of every event kind: localization keys with their English format strings and
/// arguments, so the phone localizes (`loc-key`/`loc-args`) and the server can fall back to
/// plain text from the same source.
///
/// Each kind has title variants tried in order: the first whose arguments are all known wins
/// (a score with a player reads "Saka scores for Arsenal", without one "Arsenal scores").
/// The body is the score line, followed by the feed's description when there is one.
/// ``stringCatalog`` is the English String Catalog shipped in the app (the `ScorecastActivity`
/// package's `Localizable.xcstrings`, checked by a test to be this very text). Formats with more
/// than one argument number them (`%1$@`, `%2$@`) so a translation may reorder them.
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
        /// The feed's description.
        case description
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
    }

    private static func template(_ key: String, _ format: String, _ arguments: [Argument] = []) -> Template {
        Template(key: key, format: format, arguments: arguments)
    }

    /// Title variants by kind, most specific first; the last needs nothing optional.
    public static let titles: [EventKind: [Template]] = [
        .scheduled: [template("SCHEDULED_TITLE", "%1$@ vs %2$@ is scheduled", [.home, .away])],
        .start: [template("START_TITLE", "%1$@ vs %2$@ has started", [.home, .away])],
        .score: [
            template("SCORE_PLAYER_TITLE", "%1$@ scores for %2$@", [.player, .team]),
            template("SCORE_TEAM_TITLE", "%@ scores", [.team]),
            template("SCORE_TITLE", "Score update"),
        ],
        .period: [template("PERIOD_TITLE", "Period: %@", [.period]), template("PERIOD_CHANGE_TITLE", "New period")],
        .clock: [template("CLOCK_TITLE", "Clock: %@", [.clock]), template("CLOCK_UPDATE_TITLE", "Clock update")],
        .card: [
            template("CARD_PLAYER_TITLE", "Card for %1$@ (%2$@)", [.player, .team]),
            template("CARD_TEAM_TITLE", "Card for %@", [.team]),
            template("CARD_TITLE", "Card shown"),
        ],
        .substitution: [
            template("SUBSTITUTION_PLAYER_TITLE", "Substitution for %1$@: %2$@", [.team, .player]),
            template("SUBSTITUTION_TEAM_TITLE", "Substitution for %@", [.team]),
            template("SUBSTITUTION_TITLE", "Substitution"),
        ],
        .videoReview: [template("VAR_TITLE", "Video review")],
        .penalty: [template("PENALTY_TEAM_TITLE", "Penalty for %@", [.team]), template("PENALTY_TITLE", "Penalty")],
        .timeout: [template("TIMEOUT_TEAM_TITLE", "Timeout: %@", [.team]), template("TIMEOUT_TITLE", "Timeout")],
        .stats: [template("STATS_TITLE", "Stats update")],
        .suspended: [template("SUSPENDED_TITLE", "%1$@ vs %2$@ suspended", [.home, .away])],
        .resumed: [template("RESUMED_TITLE", "%1$@ vs %2$@ resumed", [.home, .away])],
        .final: [template("FINAL_TITLE", "Final: %1$@ vs %2$@", [.home, .away])],
        .cancelled: [template("CANCELLED_TITLE", "%1$@ vs %2$@ called off", [.home, .away])],
    ]

    /// Body variants, most specific first.
    public static let bodies: [Template] = [
        template("SCORELINE_DESCRIPTION_BODY", "%1$@ %2$@–%3$@ %4$@ · %5$@", [.home, .homeScore, .awayScore, .away, .description]),
        template("SCORELINE_BODY", "%1$@ %2$@–%3$@ %4$@", [.home, .homeScore, .awayScore, .away]),
    ]

    /// Every template, sorted by key.
    public static var allTemplates: [Template] {
        (titles.values.flatMap { $0 } + bodies).sorted { $0.key < $1.key }
    }

    /// The alert for `kind`, with arguments taken from `values` (missing or empty ones make a
    /// variant unusable).
    public static func alert(for kind: EventKind, values: [Argument: String], style: AlertStyle, sound: String?) -> LiveActivityAlert {
        let title = pick(titles[kind] ?? [], values: values)
        let body = pick(bodies, values: values)
        return LiveActivityAlert(
            title: title.map { text(of: $0, values: values, style: style) },
            body: body.map { text(of: $0, values: values, style: style) },
            sound: sound
        )
    }

    static func pick(_ variants: [Template], values: [Argument: String]) -> Template? {
        variants.first { variant in variant.arguments.allSatisfy { !(values[$0] ?? "").isEmpty } }
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
