import Clocks
import Foundation
import Lifecycle
import ScorecastLogging
import ServiceBase
import Synchronization

/// The `poller` role: on every instance it contends for leadership (`LeaderLock`); the one
/// leader runs its duties on their schedules, the others wait to take over.
///
/// While leading, a watcher confirms every `leaderCheckInterval` that the lock is still held;
/// when it is not (the lock's connection died), the duties in flight are cancelled and the
/// instance goes back to contending. Duties are written so that a round interrupted half-way,
/// or run twice by an old and a new leader for a moment, leaves nothing wrong.
///
/// On shutdown the lock is released, so another instance takes over at once.
package final class Poller: Service {
    /// `poller`, for logs.
    package let name = "poller"

    private let duties: [any PollerDuty]
    private let lock: LeaderLock
    private let clock: any ServiceClock
    private let leaderCheckInterval: Duration
    private let logger: Logger
    /// Duty failures, summarised per duty (a database outage fails every round of each), and
    /// the duties' lasting failures, summarised per cause until they recover.
    private let repeats: RepeatLog
    private let observer: (@Sendable (String, Result<DutyReport, any Error>) -> Void)?
    private let leading = Atomic<Bool>(false)
    private let terms = Atomic<Int>(0)

    /// Creates the service.
    /// - Parameters:
    ///   - duties: what the leader does; names must be unique.
    ///   - lock: the leadership lock.
    ///   - clock: the time duties see and the schedule follows.
    ///   - leaderCheckInterval: how often followers try the lock and the leader confirms it.
    ///   - observer: called after every duty round (tests watch rounds with it).
    package init(
        duties: [any PollerDuty], lock: LeaderLock, clock: any ServiceClock = SystemServiceClock(),
        leaderCheckInterval: Duration, logger: Logger,
        observer: (@Sendable (String, Result<DutyReport, any Error>) -> Void)? = nil
    ) {
        self.duties = duties
        self.lock = lock
        self.clock = clock
        self.leaderCheckInterval = leaderCheckInterval
        self.logger = logger.named("poller")
        self.repeats = RepeatLog(logger: self.logger, clock: clock)
        self.observer = observer
    }

    /// Whether this instance leads now.
    package var isLeader: Bool { leading.load(ordering: .acquiring) }

    /// How many times this instance became leader.
    package var leadershipTerms: Int { terms.load(ordering: .acquiring) }

    /// Contends for leadership and, while leading, runs the duties, until `shutdown`.
    package func run(until shutdown: ShutdownSignal) async throws {
        logger.info("poller started", ["duties": duties.map(\.name).joined(separator: ",")])
        while !shutdown.isTriggered && !Task.isCancelled {
            if await lock.acquire() {
                leading.store(true, ordering: .releasing)
                terms.add(1, ordering: .acquiringAndReleasing)
                logger.notice("became the poller leader", ["backend_pid": lock.backendPID.map(String.init) ?? "?"])
                let ending = await lead(until: shutdown)
                leading.store(false, ordering: .releasing)
                if ending == .lost {
                    // Step back for two check intervals before contending again, so that a
                    // healthy follower takes over rather than the instance whose connection failed.
                    logger.warning("lost the poller leadership; another instance may lead now")
                    await sleep(leaderCheckInterval * 2, orUntil: shutdown)
                    continue
                }
                break
            }
            await sleep(leaderCheckInterval, orUntil: shutdown)
        }
        await lock.release()
        logger.info("poller stopped")
    }

    private enum LeadEnding: Sendable { case lost, shutdown }

    /// Runs the duties while a watcher confirms the lock; returns when either says stop.
    private func lead(until shutdown: ShutdownSignal) async -> LeadEnding {
        await withTaskGroup(of: LeadEnding?.self) { group in
            group.addTask { await self.runDuties(); return nil }
            group.addTask {
                while !Task.isCancelled {
                    await self.clock.sleep(for: self.leaderCheckInterval)
                    if Task.isCancelled { return nil }
                    if await !self.lock.confirm() { return .lost }
                }
                return nil
            }
            group.addTask {
                await shutdown.wait()
                return .shutdown
            }
            var ending = LeadEnding.shutdown
            for await result in group {
                if let result {
                    ending = result
                    break
                }
            }
            group.cancelAll()
            return ending
        }
    }

    /// The duty loop: runs whatever is due, sleeps until the next is, until cancelled.
    private func runDuties() async {
        var schedule = DutySchedule(intervals: Dictionary(duties.map { ($0.name, $0.interval) }, uniquingKeysWith: { first, _ in first }))
        let byName = Dictionary(duties.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        while !Task.isCancelled {
            let now = clock.now()
            for name in schedule.due(at: now) {
                guard !Task.isCancelled, let duty = byName[name] else { break }
                schedule.ran(name, startedAt: now)
                let result: Result<DutyReport, any Error>
                do {
                    result = .success(try await duty.run(at: clock.now()))
                } catch {
                    result = .failure(error)
                }
                if Task.isCancelled { return }
                log(name, result)
                observer?(name, result)
            }
            guard let wake = schedule.nextWake else { return }
            let wait = max(wake.timeIntervalSince(clock.now()), 0.01)
            await clock.sleep(for: .milliseconds(Int64((wait * 1000).rounded(.up))))
        }
    }

    private func log(_ name: String, _ result: Result<DutyReport, any Error>) {
        switch result {
        case .success(let report):
            for warning in report.warnings { logger.warning(warning, ["duty": name]) }
            for failure in report.failures {
                repeats.warning(
                    cause: failure.cause, failure.message, failure.fields.merging(["duty": name]) { _, new in new },
                    gathering: ["game"], untilRecovered: true)
            }
            for cause in report.recovered.sorted() { repeats.recovered(cause: cause, "\(cause) works again", ["duty": name]) }
            if report.isQuiet {
                logger.debug("duty ran", ["duty": name])
            } else {
                logger.info("duty ran", report.logFields.merging(["duty": name]) { _, new in new })
            }
        case .failure(let error):
            repeats.error(cause: name, "duty failed; it runs again at its next interval", ["duty": name, "error": "\(error)"])
        }
    }

    /// Sleeps `duration` on the poller's clock, returning early on shutdown.
    private func sleep(_ duration: Duration, orUntil shutdown: ShutdownSignal) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.clock.sleep(for: duration) }
            group.addTask { await shutdown.wait() }
            await group.next()
            group.cancelAll()
        }
    }
}
