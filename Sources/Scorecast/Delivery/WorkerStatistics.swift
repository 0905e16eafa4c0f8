import Synchronization

/// Running totals of one worker pool since it started (what its logs and tests read).
public struct WorkerStatistics: Sendable, Hashable {
    /// Rows claimed.
    public var claimed = 0
    /// Claims that found nothing (each still cost Postgres a scan of the outbox).
    public var emptyClaims = 0
    /// Claims not made because one this process had just made covered the news (``ClaimTurns``).
    public var claimsSkipped = 0
    /// Sends APNs accepted.
    public var sent = 0
    /// Sends that will be retried.
    public var retried = 0
    /// Sends failed for good.
    public var failed = 0
    /// Channels found gone.
    public var gone = 0
    /// Sends refused for the app's credentials.
    public var paused = 0
    /// Accepted sends lowered from priority 10 to 5 by the budget.
    public var downgraded = 0
    /// Sends whose row a newer event replaced meanwhile (the row stays pending).
    public var superseded = 0
    /// Completions dropped because the lease had been lost.
    public var fencedOut = 0
    /// Rows given back unsent (shutdown, cancellation).
    public var released = 0
    /// Alerts APNs accepted (each alerting event once, in event order per channel).
    public var alertsSent = 0
    /// Alerts dropped by policy: left out of a send because they did not fit beside the
    /// channel's newest state, or ended with a send refused for good (payload refused). Ingest
    /// logs the alerts a full queue dropped (``OutboxEntry/maximumAlerts``).
    public var alertsDropped = 0
    /// Times the APNs host's circuit breaker opened (or reopened after a failed probe).
    public var breakerOpened = 0
    /// Probes sent while it was open.
    public var probes = 0
    /// Batches completed.
    public var batches = 0

    /// Creates zeroed totals.
    public init() {}
}

/// The pool's counters, updated by every worker.
final class WorkerCounters: Sendable {
    private let totals = Mutex(WorkerStatistics())

    var snapshot: WorkerStatistics { totals.withLock { $0 } }

    func update(_ body: (inout WorkerStatistics) -> Void) {
        totals.withLock { body(&$0) }
    }
}
