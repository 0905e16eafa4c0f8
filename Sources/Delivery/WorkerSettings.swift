import Clocks
import DeliveryEngine
import Foundation
import Registry
import ScorecastCore
import ServiceBase

/// How the worker pool behaves: its size, claiming, leases, waking, shutdown, and the delivery
/// policies (budget profiles, retry schedule, expiration) it hands to the core's decisions.
package struct WorkerSettings: Sendable {
    /// Concurrent workers (claim-send-complete loops) in this process.
    package var workers: Int
    /// Outbox rows one worker claims (and sends concurrently) at once.
    package var claimBatchSize: Int
    /// Lease on claimed rows; a row whose lease expired is claimable again (rescue).
    package var leaseDuration: Duration
    /// Idle workers look at the outbox's due times at least this often (the fallback to
    /// LISTEN/NOTIFY for a lost notification); they claim only when a row is due.
    package var pollInterval: Duration
    /// After a claim that did not fill a batch, how long a worker lets new rows fall due before
    /// it claims again. A claim and its completion cost about the same for 5 rows as for 200,
    /// and under load ingest wakes the workers many times a second: without a pause they claim
    /// a handful of rows at a time and Postgres spends its time on the claims. At most this much
    /// is added to a routine send's latency; an alerting row announced meanwhile (ingest's
    /// NOTIFY says so) ends the wait, so goals take the fast lane.
    package var claimLinger: Duration
    /// Whether an alerting row announced during the linger ends it (the fast lane for goals).
    package var alertFastLane: Bool
    /// On shutdown, sends in flight get this long to finish; the rest are cancelled and released.
    package var shutdownGrace: Duration
    /// Least spacing of routine updates to one channel, applied to a routine payload that
    /// arrived while the previous one was being sent.
    package var routineInterval: Duration
    /// The built-in budget profiles' priority-10 sends per channel per hour.
    package var budgetProfiles: BudgetProfiles
    /// The budget's rolling window, shrinking after 429 and recovery (the profile comes from each app).
    package var budgetPolicy: BudgetPolicy
    /// Backoff, jitter, `Retry-After` and the attempt limit.
    package var retryPolicy: RetryPolicy
    /// When the APNs host's circuit breaker opens and how often it probes.
    package var breakerPolicy: CircuitBreaker.Policy
    /// `apns-expiration` offset on Most-Recent-Message-Stored channels (at most 8 hours there;
    /// always 0 on No-Message-Stored channels, apns.md §3).
    package var storedMessageLifetime: Duration
    /// The NOTIFY channel ingest signals after committing new outbox rows.
    package var notifyChannel: String
    /// The APNs request deadline. A send may outlast the lease: the worker extends the leases
    /// of its batch every third of the lease while it is in flight.
    package var apnsRequestTimeout: Duration

    /// The channel ingest NOTIFYs after it commits outbox rows (`EventIngestor`'s).
    package static let defaultNotifyChannel = EventIngestor.notificationChannel

    /// Creates settings; the defaults are the settings table's.
    package init(
        workers: Int = Setting.workers.integerDefault,
        claimBatchSize: Int = Setting.claimBatch.integerDefault,
        leaseDuration: Duration = .seconds(Setting.leaseSeconds.integerDefault),
        pollInterval: Duration = .milliseconds(Setting.pollIntervalMilliseconds.integerDefault),
        claimLinger: Duration = .milliseconds(Setting.claimLingerMilliseconds.integerDefault),
        alertFastLane: Bool = Setting.alertFastLane.booleanDefault,
        shutdownGrace: Duration = .seconds(Setting.shutdownGraceSeconds.integerDefault),
        routineInterval: Duration = .milliseconds(Setting.routineIntervalMilliseconds.integerDefault),
        budgetProfiles: BudgetProfiles = BudgetProfiles(
            standardPerHour: Setting.budgetStandardPerHour.integerDefault, frequentPerHour: Setting.budgetFrequentPerHour.integerDefault),
        budgetPolicy: BudgetPolicy = BudgetPolicy(finalReserve: Setting.budgetFinalReserve.integerDefault),
        retryPolicy: RetryPolicy = RetryPolicy(),
        breakerPolicy: CircuitBreaker.Policy? = nil,
        storedMessageLifetime: Duration = .seconds(8 * 3600),
        notifyChannel: String = WorkerSettings.defaultNotifyChannel,
        apnsRequestTimeout: Duration = .milliseconds(Setting.apnsTimeoutMilliseconds.integerDefault)
    ) {
        self.workers = max(1, workers)
        self.claimBatchSize = max(1, claimBatchSize)
        self.leaseDuration = max(.milliseconds(100), leaseDuration)
        self.pollInterval = max(.milliseconds(1), pollInterval)
        self.claimLinger = max(.zero, claimLinger)
        self.alertFastLane = alertFastLane
        self.shutdownGrace = max(.zero, shutdownGrace)
        self.routineInterval = max(.zero, routineInterval)
        self.budgetProfiles = budgetProfiles
        self.budgetPolicy = budgetPolicy
        self.retryPolicy = retryPolicy
        // A probe normally answers within the request deadline; give it that and a margin.
        self.breakerPolicy = breakerPolicy ?? CircuitBreaker.Policy(probeTimeout: apnsRequestTimeout.timeInterval + 5)
        self.storedMessageLifetime = max(.zero, storedMessageLifetime)
        self.notifyChannel = notifyChannel
        self.apnsRequestTimeout = apnsRequestTimeout
    }

    /// The settings `serve` uses: `SCORECAST_WORKERS`, `SCORECAST_CLAIM_BATCH`,
    /// `SCORECAST_LEASE_SECONDS`, `SCORECAST_POLL_INTERVAL_MS`, `SCORECAST_CLAIM_LINGER_MS`, `SCORECAST_ALERT_FAST_LANE`, `SCORECAST_SHUTDOWN_GRACE_SECONDS`,
    /// `SCORECAST_ROUTINE_INTERVAL_MS`, the two budget profiles, `SCORECAST_BUDGET_FINAL_RESERVE` and `SCORECAST_APNS_TIMEOUT_MS`.
    ///
    /// The in-flight grace is three quarters of the configured one, so that cancelled sends can
    /// still be released before the service group's own deadline (the full grace) cancels the pool.
    package init(configuration: Configuration) {
        self.init(
            workers: configuration.workers,
            claimBatchSize: configuration.claimBatchSize,
            leaseDuration: configuration.leaseDuration,
            pollInterval: configuration.pollInterval,
            claimLinger: configuration.claimLinger,
            alertFastLane: configuration.alertFastLane,
            shutdownGrace: configuration.shutdownGrace * 0.75,
            routineInterval: configuration.routineInterval,
            budgetProfiles: configuration.budgetProfiles,
            budgetPolicy: BudgetPolicy(finalReserve: configuration.budgetFinalReserve),
            retryPolicy: RetryPolicy(
                baseDelay: configuration.retryBase.timeInterval, maximumDelay: configuration.retryMax.timeInterval,
                maximumAttempts: configuration.retryMaxAttempts, maximumRetryAfter: configuration.retryAfterMax.timeInterval),
            apnsRequestTimeout: configuration.apnsRequestTimeout)
    }

    /// The budget policy of `app`: its own hourly budget, else its profile's default.
    package func budgetPolicy(for app: DeliveryApp) -> BudgetPolicy {
        budgetPolicy.with(budgetProfiles.profile(appBudget: app.budgetPerHour, frequentUpdates: app.frequentUpdates))
    }
}
