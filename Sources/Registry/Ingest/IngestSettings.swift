import DeliveryEngine
import ScorecastCore
import ServiceBase

/// What ingest reads from the configuration.
package struct IngestSettings: Sendable, Hashable {
    /// Most events in one request (`SCORECAST_INGEST_MAX_BATCH`).
    package var maximumBatchSize: Int
    /// How many ingest transactions run at once (`SCORECAST_INGEST_TRANSACTIONS`); requests
    /// arriving while all are busy share the next one (``IngestGroupCommit``), up to
    /// `maximumBatchSize` events.
    package var transactions: Int
    /// Largest request body in bytes (`SCORECAST_HTTP_MAX_BODY_BYTES`).
    package var maximumBodyBytes: Int
    /// Whether events for unknown games create them (`SCORECAST_UNKNOWN_GAMES=create`) or are
    /// refused.
    package var createUnknownGames: Bool
    /// Seconds a signed request's timestamp may be off (`SCORECAST_SIGNATURE_TOLERANCE_SECONDS`).
    package var signatureTolerance: Int
    /// Spacing of routine updates per channel (`SCORECAST_ROUTINE_INTERVAL_MS`).
    package var shaping: ShapingPolicy
    /// `stale-date` per sport (`SCORECAST_STALE_SECONDS`).
    package var staleness: StalenessPolicy
    /// Games one feed may create per hour (`SCORECAST_FEED_GAMES_PER_HOUR`).
    package var gamesPerFeedPerHour: Int
    /// Which events are worth a push (`SCORECAST_STATS_INTERVAL_SECONDS`).
    package var notice: NoticePolicy

    /// Creates settings; the defaults are the settings table's.
    package init(
        maximumBatchSize: Int = Setting.ingestMaxBatch.integerDefault, transactions: Int = Setting.ingestTransactions.integerDefault,
        maximumBodyBytes: Int = Setting.httpMaxBodyBytes.integerDefault, createUnknownGames: Bool = true,
        signatureTolerance: Int = Setting.signatureToleranceSeconds.integerDefault,
        shaping: ShapingPolicy = ShapingPolicy(routineInterval: Double(Setting.routineIntervalMilliseconds.integerDefault) / 1000),
        staleness: StalenessPolicy = StalenessPolicy(), gamesPerFeedPerHour: Int = Setting.feedGamesPerHour.integerDefault,
        notice: NoticePolicy = NoticePolicy(statisticsInterval: Double(Setting.statisticsIntervalSeconds.integerDefault))
    ) {
        self.notice = notice
        self.gamesPerFeedPerHour = gamesPerFeedPerHour
        self.maximumBatchSize = maximumBatchSize
        self.transactions = transactions
        self.maximumBodyBytes = maximumBodyBytes
        self.createUnknownGames = createUnknownGames
        self.signatureTolerance = signatureTolerance
        self.shaping = shaping
        self.staleness = staleness
    }

    /// The settings of `configuration`.
    package init(configuration: Configuration) {
        var bySport = configuration.staleSeconds.mapValues(Double.init)
        let fallback = bySport.removeValue(forKey: "default") ?? 900
        self.init(
            maximumBatchSize: configuration.ingestMaxBatch,
            transactions: configuration.ingestTransactions,
            maximumBodyBytes: configuration.httpMaxBodyBytes,
            createUnknownGames: configuration.ingestCreateUnknownGames,
            signatureTolerance: Int(configuration.signatureTolerance.components.seconds),
            shaping: ShapingPolicy(routineInterval: Self.seconds(configuration.routineInterval)),
            staleness: StalenessPolicy(defaultSeconds: fallback, bySport: bySport),
            gamesPerFeedPerHour: configuration.feedGamesPerHour,
            notice: NoticePolicy(statisticsInterval: Self.seconds(configuration.statisticsInterval)))
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
