import Foundation

/// How often the poller's leader does each duty, and how often instances contend for the lead.
///
/// Read from `SCORECAST_POLLER_*` (see `settings`); the retention, retire grace and reconcile
/// switches are the general `SCORECAST_RETENTION_DAYS`, `SCORECAST_RETIRE_GRACE_MINUTES` and
/// `SCORECAST_RECONCILE_FIX`.
public struct PollerSettings: Sendable, Equatable {
    /// A follower tries to take the lead, and the leader confirms it still holds its lock, this often.
    public var leaderCheckInterval: Duration
    /// Per-minute statistics roll-ups.
    public var statsInterval: Duration
    /// Rescue of outbox rows whose lease expired.
    public var rescueInterval: Duration
    /// Budget windows: roll to the new hour, restore lowered limits.
    public var budgetInterval: Duration
    /// `channels ensure` for games without channels.
    public var ensureInterval: Duration
    /// Retiring channels of finished games, and the channel-limit watch.
    public var retireInterval: Duration
    /// Reconciliation of each app's channels with APNs' list.
    public var reconcileInterval: Duration
    /// Pruning of old deliveries, events and roll-ups.
    public var pruneInterval: Duration

    /// Creates settings; the defaults are those of `Configuration`.
    public init(
        leaderCheckInterval: Duration = .seconds(2),
        statsInterval: Duration = .seconds(10),
        rescueInterval: Duration = .seconds(10),
        budgetInterval: Duration = .seconds(60),
        ensureInterval: Duration = .seconds(30),
        retireInterval: Duration = .seconds(60),
        reconcileInterval: Duration = .seconds(15 * 60),
        pruneInterval: Duration = .seconds(10 * 60)
    ) {
        self.leaderCheckInterval = leaderCheckInterval
        self.statsInterval = statsInterval
        self.rescueInterval = rescueInterval
        self.budgetInterval = budgetInterval
        self.ensureInterval = ensureInterval
        self.retireInterval = retireInterval
        self.reconcileInterval = reconcileInterval
        self.pruneInterval = pruneInterval
    }

    /// Reads the `SCORECAST_POLLER_*` variables, recording problems in `env`.
    static func load(_ env: inout EnvironmentReader) -> PollerSettings {
        PollerSettings(
            leaderCheckInterval: .milliseconds(env.integer("SCORECAST_POLLER_LEADER_CHECK_MS", default: 2_000, in: 50...60_000)),
            statsInterval: .seconds(env.integer("SCORECAST_POLLER_STATS_SECONDS", default: 10, in: 1...3_600)),
            rescueInterval: .seconds(env.integer("SCORECAST_POLLER_RESCUE_SECONDS", default: 10, in: 1...3_600)),
            budgetInterval: .seconds(env.integer("SCORECAST_POLLER_BUDGET_SECONDS", default: 60, in: 1...3_600)),
            ensureInterval: .seconds(env.integer("SCORECAST_POLLER_ENSURE_SECONDS", default: 30, in: 1...86_400)),
            retireInterval: .seconds(env.integer("SCORECAST_POLLER_RETIRE_SECONDS", default: 60, in: 1...86_400)),
            reconcileInterval: .seconds(60 * env.integer("SCORECAST_POLLER_RECONCILE_MINUTES", default: 15, in: 1...10_080)),
            pruneInterval: .seconds(60 * env.integer("SCORECAST_POLLER_PRUNE_MINUTES", default: 10, in: 1...1_440)))
    }

    /// The documentation rows of the variables `load` reads.
    static let settings: [SettingDescription] = [
        .init(name: "SCORECAST_POLLER_LEADER_CHECK_MS", defaultValue: "2000", help: "Poller instances contend for the lead (and the leader checks its lock) this often; a dead leader is replaced within about this long."),
        .init(name: "SCORECAST_POLLER_STATS_SECONDS", defaultValue: "10", help: "Per-minute statistics roll-ups run this often."),
        .init(name: "SCORECAST_POLLER_RESCUE_SECONDS", defaultValue: "10", help: "Outbox rows whose lease expired are made claimable again this often."),
        .init(name: "SCORECAST_POLLER_BUDGET_SECONDS", defaultValue: "60", help: "Budget windows are rolled and lowered limits restored this often."),
        .init(name: "SCORECAST_POLLER_ENSURE_SECONDS", defaultValue: "30", help: "Games without a channel for an app with automatic channels get one (channels ensure) this often."),
        .init(name: "SCORECAST_POLLER_RETIRE_SECONDS", defaultValue: "60", help: "Channels of finished games are retired, and channel counts checked against the limit, this often."),
        .init(name: "SCORECAST_POLLER_RECONCILE_MINUTES", defaultValue: "15", help: "Each app's channels are compared with APNs' list this often (fixed only with SCORECAST_RECONCILE_FIX)."),
        .init(name: "SCORECAST_POLLER_PRUNE_MINUTES", defaultValue: "10", help: "Deliveries, events and roll-ups older than SCORECAST_RETENTION_DAYS are pruned this often."),
    ]
}
