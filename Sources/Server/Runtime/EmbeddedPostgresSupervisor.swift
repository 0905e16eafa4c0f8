import Clocks
import Foundation
import Lifecycle
import Postgres
import ScorecastLogging
import Synchronization

/// Keeps the embedded cluster `serve` started running: looks at its postmaster every
/// `checkInterval` and, once it is gone (exited, killed, crashed on a full disk), starts it
/// again with growing pauses, logging each attempt and why the server stopped. The pools
/// reconnect on their own once it answers again.
///
/// When the server stays gone longer than the recovery limit, ``unhealthyReason()`` says so and
/// `/healthz` answers 503, so that the process's own supervisor restarts it.
package final class EmbeddedPostgresSupervisor: Service {
    package let name = "embedded-postgres-supervisor"
    /// How often the postmaster is looked at.
    static let checkInterval = Duration.milliseconds(500)

    private let server: EmbeddedPostgres
    private let supervision: Mutex<ServerSupervision>
    private let logger: Logger

    /// Supervises `server` (started already); `recoveryLimit` is how long it may stay gone.
    package init(server: EmbeddedPostgres, recoveryLimit: Duration, logger: Logger) {
        self.server = server
        self.supervision = Mutex(ServerSupervision(recoveryLimit: recoveryLimit))
        self.logger = logger.named("embedded-postgres")
    }

    /// Why the process is unhealthy (the server gone past the recovery limit), or `nil`.
    package func unhealthyReason(at now: ContinuousClock.Instant = .now) -> String? {
        let state = supervision.withLock { $0 }
        guard !state.isHealthy(at: now), let goneSince = state.goneSince else { return nil }
        return "the embedded Postgres has been down for \(Self.seconds(now - goneSince)) (limit \(Self.seconds(state.recoveryLimit))) "
            + "after \(state.attempts) restart attempts; see the log for why"
    }

    /// Checks until `shutdown`; a restart under way when it comes is finished first.
    package func run(until shutdown: ShutdownSignal) async throws {
        while !shutdown.isTriggered {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { try? await Task.sleep(for: Self.checkInterval) }
                group.addTask { await shutdown.wait() }
                await group.next()
                group.cancelAll()
            }
            if shutdown.isTriggered || Task.isCancelled { return }
            await check()
        }
    }

    /// One look at the server, and a restart when one is due.
    func check() async {
        let condition = server.condition()
        guard condition != .notStarted else { return }
        let action = supervision.withLock { $0.observe(running: condition == .running, at: .now) }
        guard case .restart(let attempt) = action else { return }
        let cause = server.stopReport()
        logger.error("the embedded Postgres stopped; restarting it", ["attempt": "\(attempt)", "cause": cause])
        do {
            try await server.restart()
            let downtime = supervision.withLock { state in
                defer { _ = state.observe(running: true, at: .now) }
                return state.goneSince.map { ContinuousClock.now - $0 }
            }
            logger.notice("the embedded Postgres runs again", [
                "attempt": "\(attempt)", "down": downtime.map(Self.seconds) ?? "?",
            ])
        } catch {
            let pause = supervision.withLock { state in
                state.restartFailed(at: .now)
                return state.pause(after: attempt)
            }
            logger.error("restarting the embedded Postgres failed; trying again", [
                "attempt": "\(attempt)", "next in": Self.seconds(pause), "error": error.message,
            ])
        }
    }

    private static func seconds(_ duration: Duration) -> String {
        String(format: "%.1f s", duration.timeInterval)
    }
}
