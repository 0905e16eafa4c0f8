/// What rendering needs to know about a game besides its state: the sport (for staleness) and
/// the team names (for alerts).
public struct GameInfo: Sendable, Hashable {
    /// The sport or league key used by ``StalenessPolicy`` (`soccer`, `nba`…); matched lower-cased.
    public var sport: String
    /// The home team's display name.
    public var homeName: String
    /// The away team's display name.
    public var awayName: String

    /// Creates the info; empty names fall back to `Home` and `Away` (games created on the fly
    /// from a feed event have no names yet).
    public init(sport: String, homeName: String?, awayName: String?) {
        self.sport = sport
        self.homeName = homeName.flatMap { $0.isEmpty ? nil : $0 } ?? "Home"
        self.awayName = awayName.flatMap { $0.isEmpty ? nil : $0 } ?? "Away"
    }

    /// The display name of `side`.
    public func name(of side: TeamSide) -> String {
        side == .home ? homeName : awayName
    }
}
