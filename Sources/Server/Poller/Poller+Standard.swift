import Clocks
import Foundation
import Postgres
import Registry
import ScorecastLogging
import ServiceBase

extension Poller {
    /// Every duty of the `poller` role, on the intervals of `configuration`:
    /// statistics roll-ups, lease rescue, channels for new games, retiring
    /// channels of finished games (and the channel-limit watch), reconciliation with APNs, and
    /// pruning past the retention.
    package static func standardDuties(
        configuration: Configuration, pool: PostgresPool, registry: ChannelRegistry, metrics: ScorecastMetrics?
    ) -> [any PollerDuty] {
        let settings = configuration.poller
        return [
            StatsRollupDuty(pool: pool, interval: settings.statsInterval),
            LeaseRescueDuty(pool: pool, interval: settings.rescueInterval, metrics: metrics),
            EnsureChannelsDuty(registry: registry, interval: settings.ensureInterval, window: configuration.autoChannelWindow),
            AbandonedGamesDuty(pool: pool, interval: settings.retireInterval, timeout: configuration.feedGameTimeout),
            RetireDuty(registry: registry, interval: settings.retireInterval, grace: configuration.retireGrace, channelLimit: configuration.channelLimit),
            ReconcileDuty(registry: registry, interval: settings.reconcileInterval, fix: configuration.reconcileFix),
            PruneDuty(pool: pool, interval: settings.pruneInterval, plan: PrunePlan(retentionDays: configuration.retentionDays)),
        ]
    }

    /// The `poller` role as `serve` runs it: the standard duties, leadership (a session lock) on
    /// `sessionPool`'s database and schema (by default `pool`'s), the time of `clock`.
    package static func standard(
        configuration: Configuration, pool: PostgresPool, sessionPool: PostgresPool? = nil, registry: ChannelRegistry,
        metrics: ScorecastMetrics?, logger: Logger, clock: any ServiceClock = SystemServiceClock()
    ) -> Poller {
        Poller(
            duties: standardDuties(configuration: configuration, pool: pool, registry: registry, metrics: metrics),
            lock: LeaderLock(configuration: (sessionPool ?? pool).configuration, logger: logger.named("poller")), clock: clock,
            leaderCheckInterval: configuration.poller.leaderCheckInterval, logger: logger)
    }
}
