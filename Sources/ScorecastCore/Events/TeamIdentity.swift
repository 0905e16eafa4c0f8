import JSON
import ScorecastActivity

/// A team's identity beyond its name: the 3-letter code of the Dynamic Island's compact view
/// and the colours the Live Activity shows. The game's registration gives one, the feed may
/// give another (``FeedEvent/teams``); each part is optional, and ``attributes(name:)`` fills
/// what is still missing with `GameAttributes.Team`'s fallbacks.
public struct TeamIdentity: Sendable, Hashable {
    /// The 3-letter code, upper-case ASCII letters and digits (`GameAttributes.Team.validCode`).
    public var code: String?
    /// The primary colour, `#RRGGBB` upper-case (`GameAttributes.Team.validColour`).
    public var primaryColour: String?
    /// The secondary colour, `#RRGGBB` upper-case.
    public var secondaryColour: String?

    /// Creates an identity.
    public init(code: String? = nil, primaryColour: String? = nil, secondaryColour: String? = nil) {
        self.code = code
        self.primaryColour = primaryColour
        self.secondaryColour = secondaryColour
    }

    /// Whether no part is known.
    public var isEmpty: Bool { code == nil && primaryColour == nil && secondaryColour == nil }

    /// This identity with each missing part taken from `other`: the registration's values win,
    /// the feed's fill the gaps.
    public func filled(from other: TeamIdentity) -> TeamIdentity {
        TeamIdentity(
            code: code ?? other.code, primaryColour: primaryColour ?? other.primaryColour,
            secondaryColour: secondaryColour ?? other.secondaryColour)
    }

    /// The team as the Live Activity's attributes carry it: this identity's code and colours, or
    /// the fallbacks (a code from `name`'s letters, neutral colours), so every app sees all three.
    public func attributes(name: String) -> GameAttributes.Team {
        let known = GameAttributes.Team(name: name, abbreviation: code, primaryColour: primaryColour, secondaryColour: secondaryColour)
        return GameAttributes.Team(name: name, abbreviation: known.code, primaryColour: known.primary, secondaryColour: known.secondary)
    }
}

extension TeamIdentity {
    /// The identity in its wire shape (an event's `teams.home`, a stored state's): the parts
    /// known, by name.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = [:]
        if let code { members["code"] = .string(code) }
        if let primaryColour { members["primaryColour"] = .string(primaryColour) }
        if let secondaryColour { members["secondaryColour"] = .string(secondaryColour) }
        return .object(members)
    }

    /// Identities by side in their wire shape: `{"home": {…}, "away": {…}}`, the sides known.
    public static func jsonValue(of teams: [TeamSide: TeamIdentity]) -> JSONValue {
        .object(Dictionary(uniqueKeysWithValues: teams.map { ($0.key.rawValue, $0.value.jsonValue) }))
    }
}
