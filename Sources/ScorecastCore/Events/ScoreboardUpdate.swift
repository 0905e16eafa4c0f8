import JSON
import ScorecastActivity

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
    /// Whether the clock is running now, when the feed says (count-down sports stop it often).
    public var clockRunning: Bool?
    /// The clock's exact reading in seconds at the event's time, when the feed gives one
    /// (otherwise it is read from the ``clock`` label).
    public var clockSeconds: Double?
    /// Announced added time in minutes, set or cleared.
    public var addedTime: FieldUpdate<Int>
    /// The penalty shoot-out score, set or cleared.
    public var shootout: FieldUpdate<ContentState.TeamTally>

    /// Creates an update; the default changes nothing.
    public init(
        home: Int? = nil,
        away: Int? = nil,
        period: FieldUpdate<String> = .keep,
        clock: FieldUpdate<String> = .keep,
        extra: [String: JSONValue] = [:],
        clockRunning: Bool? = nil,
        clockSeconds: Double? = nil,
        addedTime: FieldUpdate<Int> = .keep,
        shootout: FieldUpdate<ContentState.TeamTally> = .keep
    ) {
        self.home = home
        self.away = away
        self.period = period
        self.clock = clock
        self.extra = extra
        self.clockRunning = clockRunning
        self.clockSeconds = clockSeconds
        self.addedTime = addedTime
        self.shootout = shootout
    }

    /// Whether the update changes nothing.
    public var isEmpty: Bool {
        home == nil && away == nil && period == .keep && clock == .keep && extra.isEmpty
            && clockRunning == nil && clockSeconds == nil && addedTime == .keep && shootout == .keep
    }
}
