import JSON

/// A full or partial scoreboard sent with an event: only the fields present change the game.
public struct ScoreboardUpdate: Sendable, Hashable {
    /// The home team's score, when sent.
    public var home: Int?
    /// The away team's score, when sent.
    public var away: Int?
    /// The period label (`"2H"`, `"Q3"`, `"Top 7th"`), set or cleared.
    public var period: FieldUpdate<String>
    /// The clock label (`"67'"`, `"04:12"`), set or cleared.
    public var clock: FieldUpdate<String>
    /// Sport-specific scalar values by name (`corners`, `outs`, `possession`); a `null` value
    /// removes that name from the game.
    public var extra: [String: JSONValue]

    /// Creates an update; the default changes nothing.
    public init(
        home: Int? = nil,
        away: Int? = nil,
        period: FieldUpdate<String> = .keep,
        clock: FieldUpdate<String> = .keep,
        extra: [String: JSONValue] = [:]
    ) {
        self.home = home
        self.away = away
        self.period = period
        self.clock = clock
        self.extra = extra
    }

    /// Whether the update changes nothing.
    public var isEmpty: Bool {
        home == nil && away == nil && period == .keep && clock == .keep && extra.isEmpty
    }
}
