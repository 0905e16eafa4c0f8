import Foundation

/// How often the poller's leader does each duty, and how often instances contend for the lead.
///
/// Read from `SCORECAST_POLLER_*` (see `Setting.all`); the retention, retire grace and reconcile
/// switches are the general `SCORECAST_RETENTION_DAYS`, `SCORECAST_RETIRE_GRACE_MINUTES` and
/// `SCORECAST_RECONCILE_FIX`.
package struct PollerSettings: Sendable, Equatable {
    /// A follower tries to take the lead, and the leader confirms it still holds its lock, this often.
    package var leaderCheckInterval: Duration
    /// Per-minute statistics roll-ups.
    package var statsInterval: Duration
    /// Rescue of outbox rows whose lease expired.
    package var rescueInterval: Duration
    /// `channels ensure` for games without channels.
    package var ensureInterval: Duration
    /// Retiring channels of finished games, and the channel-limit watch.
    package var retireInterval: Duration
    /// Reconciliation of each app's channels with APNs' list.
    package var reconcileInterval: Duration
    /// Pruning of old deliveries, events and roll-ups.
    package var pruneInterval: Duration

    /// Creates settings; the defaults are the settings table's.
    package init(
        leaderCheckInterval: Duration = .milliseconds(Setting.pollerLeaderCheckMilliseconds.integerDefault),
        statsInterval: Duration = .seconds(Setting.pollerStatsSeconds.integerDefault),
        rescueInterval: Duration = .seconds(Setting.pollerRescueSeconds.integerDefault),
        ensureInterval: Duration = .seconds(Setting.pollerEnsureSeconds.integerDefault),
        retireInterval: Duration = .seconds(Setting.pollerRetireSeconds.integerDefault),
        reconcileInterval: Duration = .seconds(60 * Setting.pollerReconcileMinutes.integerDefault),
        pruneInterval: Duration = .seconds(60 * Setting.pollerPruneMinutes.integerDefault)
    ) {
        self.leaderCheckInterval = leaderCheckInterval
        self.statsInterval = statsInterval
        self.rescueInterval = rescueInterval
        self.ensureInterval = ensureInterval
        self.retireInterval = retireInterval
        self.reconcileInterval = reconcileInterval
        self.pruneInterval = pruneInterval
    }

    /// Reads the `SCORECAST_POLLER_*` variables, recording problems in `env`.
    static func load(_ env: inout EnvironmentReader) -> PollerSettings {
        PollerSettings(
            leaderCheckInterval: .milliseconds(env.integer(.pollerLeaderCheckMilliseconds)),
            statsInterval: .seconds(env.integer(.pollerStatsSeconds)),
            rescueInterval: .seconds(env.integer(.pollerRescueSeconds)),
            ensureInterval: .seconds(env.integer(.pollerEnsureSeconds)),
            retireInterval: .seconds(env.integer(.pollerRetireSeconds)),
            reconcileInterval: .seconds(60 * env.integer(.pollerReconcileMinutes)),
            pruneInterval: .seconds(60 * env.integer(.pollerPruneMinutes)))
    }
}
