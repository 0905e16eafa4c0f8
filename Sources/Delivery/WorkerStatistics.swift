import Synchronization

/// Running totals of one worker pool since it started (what its logs and tests read).
package struct WorkerStatistics: Sendable, Hashable {
    /// Rows claimed.
    package var claimed = 0
    /// Of them, rows ingest leased to this process and handed over (``AlertHandOff``).
    package var handedOver = 0
    /// Claims that found nothing (each still cost Postgres a scan of the outbox).
    package var emptyClaims = 0
    /// Claims not made because one this process had just made covered the news (``ClaimTurns``).
    package var claimsSkipped = 0
    /// Sends APNs accepted.
    package var sent = 0
    /// Sends that will be retried.
    package var retried = 0
    /// Sends failed for good.
    package var failed = 0
    /// Channels found gone.
    package var gone = 0
    /// Sends refused for the app's credentials.
    package var paused = 0
    /// Accepted sends lowered from priority 10 to 5 by the budget.
    package var downgraded = 0
    /// Sends whose row a newer event replaced meanwhile (the row stays pending).
    package var superseded = 0
    /// Completions dropped because the lease had been lost.
    package var fencedOut = 0
    /// Rows given back unsent (shutdown, cancellation).
    package var released = 0
    /// Rows finished unsent because their send would have repeated the channel's last accepted
    /// one (the same event and content-state, no alert).
    package var repeatsSkipped = 0
    /// Alerts APNs accepted (each alerting event once, in event order per channel).
    package var alertsSent = 0
    /// Alerts dropped by policy: left out of a send because they did not fit beside the
    /// channel's newest state, or ended with a send refused for good (payload refused). Ingest
    /// logs the alerts a full queue dropped (``OutboxEntry/maximumAlerts``).
    package var alertsDropped = 0
    /// Times the APNs host's circuit breaker opened (or reopened after a failed probe).
    package var breakerOpened = 0
    /// Probes sent while it was open.
    package var probes = 0
    /// Batches completed.
    package var batches = 0

    /// Creates zeroed totals.
    package init() {}
}

/// The pool's counters, updated by every worker.
final class WorkerCounters: Sendable {
    private let totals = Mutex(WorkerStatistics())

    var snapshot: WorkerStatistics { totals.withLock { $0 } }

    func update(_ body: (inout WorkerStatistics) -> Void) {
        totals.withLock { body(&$0) }
    }
}
