/// Part 7: a Saturday of matches replaying the bundled match through the real ingest API.
struct SaturdayReport: Sendable, Codable {
    /// Matches played, each its own game with its own channels.
    var matches: Int
    /// Events per match (the bundled match's).
    var eventsPerMatch: Int
    /// Time compression (1 = real pace).
    var speed: Double
    /// Real seconds over which the kick-offs were spread.
    var kickoffSpreadSeconds: Double
    /// The day at real pace, seconds.
    var realSeconds: Double
    /// The day as replayed, seconds.
    var compressedSeconds: Double
    /// The most events due in one second of the replay.
    var peakEventsPerSecond: Int
    /// Events per second averaged over the replay.
    var averageEventsPerSecond: Double
    /// Channels per match.
    var channelsPerMatch: Int
    /// The run's figures, measured as part 3 measures.
    var run: EndToEndRun
}
