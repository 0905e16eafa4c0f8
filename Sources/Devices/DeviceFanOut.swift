import APNs
import Clocks
import Delivery
import Foundation
import Lifecycle
import Postgres
import Registry
import ScorecastCore
import ScorecastLogging
import ServiceBase

/// The device side's worker: starts Live Activities at kick-off (push-to-start to every
/// following device), keeps activities without a channel updated through their own push
/// tokens, and expires silent devices. One per `serve` process with the worker role; any
/// number of processes share the work through Postgres (`SKIP LOCKED` claims under leases).
///
/// Each round it: records the kick-offs that are due (lead time before the scheduled start, or the
/// game is live); gives up starts whose lease expired (at most once, never twice); plans and sends
/// starts chunk by chunk, several batches in flight, until none are due; queues and sends
/// token-path updates.
/// Between rounds it waits for the next due time or a notification (``FanOutSchedule``).
package final class DeviceFanOut: Service {
    /// `devices`, for logs.
    package let name = "devices"

    let settings: DeviceSettings
    let kickoffs: KickoffStore
    let sender: StartSender
    let tokens: ActivityTokenPath
    let expiry: DeviceExpiry
    let schedule: FanOutSchedule
    /// The longest pause between rounds when nothing falls due and nothing notifies.
    let idleLimit: Duration
    let lease: Duration
    let owner: String
    let logger: Logger
    let clock: any ServiceClock
    /// Round failures, summarised: while the database is away every round fails alike.
    let repeats: RepeatLog

    /// Creates the worker; `idleLimit` is the longest pause between rounds (10 s by default).
    package init(
        pool: PostgresPool, apns: APNsClientSet, credentials: CredentialStore, configuration: Configuration,
        metrics: DeviceMetrics?, logger: Logger, clock: any ServiceClock = SystemServiceClock(),
        idleLimit: Duration? = nil
    ) {
        let logger = logger.named("devices")
        let staleness = IngestSettings(configuration: configuration).staleness
        self.settings = configuration.devices
        self.kickoffs = KickoffStore(pool: pool)
        self.sender = StartSender(
            pool: pool, apns: apns, credentials: credentials, staleness: staleness,
            pacer: SendPacer(perSecond: configuration.devices.startsPerSecond, clock: clock), metrics: metrics, logger: logger)
        self.tokens = ActivityTokenPath(
            pool: pool, apns: apns, credentials: credentials, staleness: staleness, batch: configuration.devices.startBatch,
            budget: ActivityBudget(profiles: configuration.budgetProfiles, finalReserve: configuration.budgetFinalReserve),
            metrics: metrics, logger: logger, clock: clock)
        self.expiry = DeviceExpiry(pool: pool, ttl: configuration.devices.deviceTTL)
        self.schedule = FanOutSchedule(pool: pool)
        self.idleLimit = idleLimit ?? FanOutSchedule.idleLimit
        self.lease = max(configuration.leaseDuration, configuration.apnsRequestTimeout * 2)
        self.owner = "devices/" + WorkerIdentity.makeOwnerPrefix()
        self.logger = logger
        self.repeats = RepeatLog(logger: logger, clock: clock)
        self.clock = clock
    }

    /// Runs until `shutdown`: a round, then a pause until work falls due or a notification
    /// announces some (``FanOutSchedule``), at least `pollInterval` between rounds.
    package func run(until shutdown: ShutdownSignal) async throws {
        logger.info("device fan-out starting", ["lead": "\(settings.startLead)", "rate": String(settings.startsPerSecond)])
        let wake = WakeSignal()
        let (pool, logger, clock) = (schedule.pool, logger, clock)
        await withTaskGroup(of: Void.self) { group in
            for channel in [EventIngestor.notificationChannel, KickoffStore.notificationChannel] {
                group.addTask { await Self.listen(channel, pool: pool, wake: wake, clock: clock, logger: logger) }
            }
            await rounds(until: shutdown, wake: wake)
            group.cancelAll()
        }
        logger.info("device fan-out stopped")
    }

    private func rounds(until shutdown: ShutdownSignal, wake: WakeSignal) async {
        var lastExpiry = Date.distantPast
        while !shutdown.isTriggered, !Task.isCancelled {
            let seen = wake.generation
            var wakeTime = clock.now().addingTimeInterval(1)
            do {
                try await tick()
                if clock.now().timeIntervalSince(lastExpiry) >= 3_600 {
                    let expired = try await expiry.run(now: clock.now())
                    if expired > 0 { logger.info("expired silent devices", ["devices": String(expired)]) }
                    lastExpiry = clock.now()
                }
                let due = try await schedule.nextDue(now: clock.now(), lead: settings.startLead)
                wakeTime = FanOutSchedule.wakeTime(roundEnded: clock.now(), nextDue: due, idleLimit: idleLimit)
            } catch {
                repeats.warning("device fan-out round failed; trying again", ["error": "\(error)"])
            }
            // At least `pollInterval` between rounds, then until the wake time or a notification
            // (a signal during the round ends the wait at once), all on the service's clock.
            let (clock, pollInterval) = (clock, settings.pollInterval)
            await firstOf([{ await clock.sleep(for: pollInterval) }], orUntil: shutdown)
            let remaining = wakeTime.timeIntervalSince(clock.now())
            if remaining > 0 {
                let untilDue = Duration.milliseconds(Int64((remaining * 1_000).rounded(.up)))
                await firstOf([{ await clock.sleep(for: untilDue) }, { await wake.wait(after: seen, timeout: nil) }], orUntil: shutdown)
            }
        }
    }

    /// Waits until the first of `waits` ends, or `shutdown`; the others are cancelled.
    private func firstOf(_ waits: [@Sendable () async -> Void], orUntil shutdown: ShutdownSignal) async {
        await withTaskGroup(of: Void.self) { group in
            for wait in waits { group.addTask { await wait() } }
            group.addTask { await shutdown.wait() }
            await group.next()
            group.cancelAll()
        }
    }

    /// Signals `wake` on every notification on `channel`, and each time the subscription becomes
    /// active (a notification sent while nobody listened is lost; the round it wakes finds the
    /// work itself); subscribes again after a failure.
    private static func listen(_ channel: String, pool: PostgresPool, wake: WakeSignal, clock: any ServiceClock, logger: Logger) async {
        while !Task.isCancelled {
            do {
                for try await _ in pool.listen(channel) { wake.signal() }
            } catch {
                if Task.isCancelled { return }
                logger.warning("listening for notifications failed; due times only meanwhile", ["channel": channel, "error": "\(error)"])
            }
            wake.signal()
            await clock.sleep(for: .seconds(1))
        }
    }

    /// One round: record due kick-offs, abandon expired leases, plan and send every due start, and hand
    /// game updates to activity tokens. Returns how many starts were sent.
    @discardableResult
    func tick() async throws -> Int {
        for due in try await kickoffs.dueKickoffs(now: clock.now(), lead: settings.startLead) {
            try await kickoffs.begin(gameID: due.gameID, trigger: due.trigger, now: clock.now())
            logger.info("kick-off: starting Live Activities", ["game": due.gameID, "trigger": due.trigger.rawValue])
        }
        let abandoned = try await kickoffs.abandonExpired(now: clock.now())
        if abandoned > 0 { logger.warning("push-to-starts interrupted mid-send are not repeated", ["starts": String(abandoned)]) }
        let sent = try await sendDueStarts()
        try await tokens.round(owner: owner, lease: lease)
        return sent
    }

    /// Sends every due start, keeping up to `startBatchesInFlight` claimed batches on their way:
    /// starts due for a retry first, then kick-offs' next chunks, each planned and claimed in one
    /// write (``KickoffStore/planAndClaim(limit:owner:lease:now:)``) while the chunks before it are
    /// sent, so the first push-to-start goes out after one chunk is planned, not the whole
    /// audience. The next claim and the write-back of finished batches overlap the sends of the
    /// others, so the APNs client always has requests queued. A failure stops claiming but lets
    /// the batches in flight finish and be recorded (cancelling them would turn starts APNs may
    /// have accepted into failures), then is thrown. Returns how many starts were sent.
    func sendDueStarts() async throws -> Int {
        let (kickoffs, sender, owner, lease, clock) = (kickoffs, sender, owner, lease, clock)
        let batch = settings.startBatch
        let outcome = await withTaskGroup(of: Result<Int, any Error>.self) { group -> Result<Int, any Error> in
            var sent = 0
            var inFlight = 0
            var failure: (any Error)?
            func record(_ finished: Result<Int, any Error>) {
                inFlight -= 1
                switch finished {
                case .success(let count): sent += count
                case .failure(let error): failure = failure ?? error
                }
            }
            var retriesLeft = true
            while failure == nil {
                if inFlight >= settings.startBatchesInFlight, let finished = await group.next() {
                    record(finished)
                    continue
                }
                var claimed: [KickoffStore.ClaimedStart] = []
                var planning = false
                do {
                    if retriesLeft {
                        claimed = try await kickoffs.claim(limit: batch, owner: owner, lease: lease, now: clock.now())
                        retriesLeft = claimed.count == batch
                    }
                    if claimed.isEmpty {
                        let chunk = try await kickoffs.planAndClaim(limit: batch, owner: owner, lease: lease, now: clock.now())
                        (claimed, planning) = (chunk.claimed, chunk.planned)
                    }
                } catch {
                    failure = error
                    break
                }
                // A chunk of devices already started (or without a token) claims nothing; planning goes on.
                if claimed.isEmpty {
                    if planning { continue }
                    break
                }
                inFlight += 1
                group.addTask {
                    let completions = await sender.send(claimed, now: clock.now())
                    do {
                        try await kickoffs.complete(completions, owner: owner, now: clock.now())
                        return .success(claimed.count)
                    } catch {
                        return .failure(error)
                    }
                }
            }
            while let finished = await group.next() { record(finished) }
            return failure.map { .failure($0) } ?? .success(sent)
        }
        return try outcome.get()
    }
}
