/// The bounds ``FeedEventValidator`` enforces. The defaults are the ones written in
/// `Schema/event.schema.json`; only ``maximumBatchSize`` and the clock-skew tolerance are meant
/// to be changed by configuration.
public struct FeedEventLimits: Sendable, Hashable {
    /// Most events in one `{"events": [...]}` body.
    public var maximumBatchSize: Int
    /// How far in the future (seconds, relative to the server's clock) `occurredAt` may be.
    public var maximumFutureSkew: Double

    /// Longest event id, in Unicode scalars.
    public static let idMaximumLength = 128
    /// Longest game id.
    public static let gameMaximumLength = 128
    /// Largest `seq`: 2^53, the largest integer every JSON implementation keeps exactly.
    public static let seqMaximum = 9_007_199_254_740_992
    /// Largest score.
    public static let scoreMaximum = 999_999
    /// Longest period or clock label.
    public static let labelMaximumLength = 16
    /// Longest description.
    public static let descriptionMaximumLength = 280
    /// Longest short name of a player.
    public static let shortNameMaximumLength = 32
    /// Largest clock reading in seconds (a day).
    public static let clockSecondsMaximum: Double = 86_400
    /// Most minutes of added time.
    public static let addedTimeMaximum = 60
    /// Largest shoot-out score.
    public static let shootoutMaximum = 99
    /// Longest player name.
    public static let playerMaximumLength = 64
    /// Most entries in `scoreboard.extra`.
    public static let extraMaximumEntries = 16
    /// Longest `extra` key (ASCII letter, then letters, digits or `_`).
    public static let extraKeyMaximumLength = 32
    /// Longest `extra` string value.
    public static let extraStringMaximumLength = 64
    /// The default for ``maximumBatchSize`` (also `maxItems` in the schema).
    public static let defaultMaximumBatchSize = 500

    /// Creates limits.
    public init(maximumBatchSize: Int = FeedEventLimits.defaultMaximumBatchSize, maximumFutureSkew: Double = 600) {
        self.maximumBatchSize = maximumBatchSize
        self.maximumFutureSkew = maximumFutureSkew
    }
}
