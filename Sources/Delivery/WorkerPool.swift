import APNs
import Clocks
import Foundation
import Lifecycle
import Postgres
import Registry
import ScorecastLogging
import ServiceBase

/// The fan-out worker pool of one `serve` process: ``WorkerSettings/workers`` workers in one
/// task group, each claiming due outbox rows under a lease, sending them to APNs and writing
/// the outcome (see `design.md`, delivery rules, and apns.md §3, §5, §8).
///
/// Woken by `LISTEN scorecast_outbox` (ingest notifies after it commits) with a polling
/// fallback. On shutdown it stops claiming, lets the sends in flight finish within the grace
/// period, and releases the leases of everything it still holds.
///
/// ```swift
/// let workers = WorkerPool(pool: database.pool, apns: clients, settings: WorkerSettings(configuration: configuration), logger: logger)
/// services.append(workers)   // a Service, run by the ServiceGroup
/// ```
package final class WorkerPool: Service {
    /// `workers`, for logs.
    package let name = "workers"
    /// The settings the pool runs with.
    package let settings: WorkerSettings

    private let notifications: PostgresPool
    private let context: WorkerContext

    /// Creates a pool; nothing runs until ``run(until:)``.
    /// - Parameters:
    ///   - pool: the database.
    ///   - notifications: where to `LISTEN` (a session of its own, so past a transaction
    ///     pooler); by default `pool`.
    ///   - apns: the APNs clients broadcasts go through (an `APNsClient`, or one client per
    ///     signing key), shared with the rest of the process.
    ///   - credentials: where apps' keys are loaded and cached; share one per process.
    ///   - metrics: the process's `/metrics`, counted as sends are written.
    ///   - ownerPrefix: this process's lease owner prefix; by default `host:pid:random`.
    ///   - handOff: where this process's ingest hands over the goals it leased to these
    ///     workers; its owner prefix is the pool's when `ownerPrefix` is not given. `nil` when
    ///     the process does not ingest.
    ///   - clock: the time claims and leases are decided at, and the lease heartbeat's pace.
    package init(
        pool: PostgresPool,
        notifications: PostgresPool? = nil,
        apns: some BroadcastClients,
        credentials: CredentialStore = CredentialStore(),
        settings: WorkerSettings,
        logger: Logger,
        metrics: ScorecastMetrics? = nil,
        ownerPrefix: String? = nil,
        handOff: AlertHandOff? = nil,
        clock: any ServiceClock = SystemServiceClock()
    ) {
        let logger = logger.named("workers")
        self.notifications = notifications ?? pool
        self.settings = settings
        let wakeup = WakeSignal()
        let alerting = WakeSignal()
        handOff?.onHandOver {
            alerting.signal()
            wakeup.signal()
        }
        self.context = WorkerContext(
            store: OutboxStore(pool: pool, logger: logger), apns: apns, credentials: credentials, settings: settings,
            logger: logger, repeats: RepeatLog(logger: logger), wakeup: wakeup, alerting: alerting,
            stopping: WakeSignal(), inFlight: InFlightChannels(), turns: ClaimTurns(),
            counters: WorkerCounters(), breaker: HostBreaker(policy: settings.breakerPolicy, clock: clock), metrics: metrics,
            ownerPrefix: ownerPrefix ?? handOff?.ownerPrefix ?? WorkerIdentity.makeOwnerPrefix(),
            handOff: handOff, clock: clock)
    }

    /// The prefix of this pool's lease owners (`<prefix>/w<n>`).
    package var ownerPrefix: String { context.ownerPrefix }

    /// Totals since the pool started.
    package var statistics: WorkerStatistics { context.counters.snapshot }

    /// Runs the workers until `shutdown` is triggered, then stops claiming, finishes or
    /// releases what is in flight, and returns. Cancelling the task stops at once: sends in
    /// flight are abandoned and their leases left to expire (as if the process had died).
    package func run(until shutdown: ShutdownSignal) async throws {
        let context = self.context
        context.logger.info("worker pool starting", [
            "workers": String(settings.workers), "batch": String(settings.claimBatchSize),
            "lease": "\(settings.leaseDuration)", "owner": context.ownerPrefix])
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await Self.listen(context: context, pool: self.notifications) }
            group.addTask {
                await withTaskGroup(of: Void.self) { workers in
                    for index in 0..<context.settings.workers {
                        workers.addTask { await DeliveryWorker(index: index, context: context).run() }
                    }
                }
            }
            // Cancellation means "stop now": it ends the wait like a shutdown, and the workers,
            // cancelled too, give up their sends at once.
            await withTaskCancellationHandler {
                await shutdown.wait()
            } onCancel: {
                shutdown.trigger()
            }
            context.logger.info("worker pool stopping: no more claims; finishing sends in flight")
            // Ingest stops leasing goals to these workers; those not yet taken are given back below.
            context.handOff?.close()
            context.stopping.signal()
            context.alerting.signal()
            context.wakeup.signal()
            // The workers' group ends first (the listener only ends when cancelled).
            await group.next()
            group.cancelAll()
        }
        // A safety net for rows whose completion could not be written.
        do {
            let released = try await context.store.releaseAll(ownerPrefix: context.ownerPrefix + "/")
            if released > 0 { context.logger.notice("released leases still held at shutdown", ["rows": String(released)]) }
        } catch {
            context.logger.warning("could not release leases at shutdown; they expire by themselves", ["error": "\(error)"])
        }
        let totals = statistics
        context.logger.info("worker pool stopped", [
            "sent": String(totals.sent), "handed_over": String(totals.handedOver), "retried": String(totals.retried), "failed": String(totals.failed),
            "gone": String(totals.gone), "paused": String(totals.paused), "downgraded": String(totals.downgraded),
            "released": String(totals.released)])
    }

    /// Wakes the workers on every NOTIFY, and ends their linger when it announces an alerting
    /// row; re-subscribes after a failure until cancelled. Each time the subscription becomes
    /// active (at start, after a reconnect) the workers are woken too: a row whose NOTIFY came
    /// while nobody listened is found by the look that follows, not by the next poll.
    private static func listen(context: WorkerContext, pool: PostgresPool) async {
        while !Task.isCancelled {
            do {
                for try await event in pool.listen(context.settings.notifyChannel) {
                    switch event {
                    case .listening: context.alerting.signal()
                    case .notification(let notification):
                        if notification.payload == EventIngestor.alertingNotification { context.alerting.signal() }
                        if notification.payload.hasPrefix(ChannelRegistry.resumeNoticePrefix) {
                            context.logger.notice("app resumed: its waiting updates are sent again", [
                                "app": String(notification.payload.dropFirst(ChannelRegistry.resumeNoticePrefix.count))])
                        }
                    }
                    context.wakeup.signal()
                }
            } catch {
                if Task.isCancelled { return }
                context.logger.warning("listening for outbox notifications failed; polling meanwhile", ["error": "\(error)"])
            }
            // The stream ended (pool closing, or an error): wake everyone once, then try again.
            context.alerting.signal()
            context.wakeup.signal()
            try? await Task.sleep(for: .seconds(1))
        }
    }
}
