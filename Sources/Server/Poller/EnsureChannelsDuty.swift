import Foundation
import Postgres
import Registry
import Synchronization

/// `channels ensure` for games that lack a channel: every game not over yet that some app with
/// automatic channels (and not paused) has no live channel for, and did not opt out of (an
/// admin deleted its channel), gets one through
/// `ChannelRegistry.ensureChannels(gameID:)`. This is how games created by the feed get their
/// channels. Only games that are live, or start within `window` of now
/// (`SCORECAST_AUTO_CHANNEL_WINDOW_HOURS`), get one, so that a feed naming games far ahead (or
/// never) cannot fill the app's channel limit. Games whose ensure failed wait
/// (`EnsureBackoff`) before being tried again.
package final class EnsureChannelsDuty: PollerDuty {
    /// `ensure`.
    package let name = "ensure"
    /// How often it runs.
    package let interval: Duration
    /// Games looked at per round at most (oldest first).
    package let batchSize: Int
    /// How far from now a game's start may be for it to get a channel before it is live.
    package let window: Duration
    private let registry: ChannelRegistry
    private let backoff = Mutex(EnsureBackoff())

    /// Creates the duty.
    package init(registry: ChannelRegistry, interval: Duration, batchSize: Int = 50, window: Duration = .seconds(24 * 3600)) {
        self.registry = registry
        self.window = window
        self.interval = interval
        self.batchSize = max(1, batchSize)
    }

    /// Ensures channels for the games that need one at `now`.
    package func run(at now: Date) async throws -> DutyReport {
        let windowSeconds = Double(window.components.seconds)
        let rows = try await registry.pool.query("""
            SELECT g.id FROM games g
            WHERE g.status NOT IN ('final', 'cancelled')
              AND (g.status IN ('live', 'suspended')
                   OR g.starts_at BETWEEN \(now.addingTimeInterval(-windowSeconds)) AND \(now.addingTimeInterval(windowSeconds)))
              AND EXISTS (
                SELECT 1 FROM apps a
                WHERE a.auto_channels AND a.paused_at IS NULL
                  AND NOT EXISTS (
                    SELECT 1 FROM channel_bindings b JOIN channels c ON c.id = b.channel_id
                    WHERE b.game_id = g.id AND c.app_id = a.id AND c.status IN ('active', 'retiring'))
                  AND NOT EXISTS (SELECT 1 FROM channel_opt_outs o WHERE o.app_id = a.id AND o.game_id = g.id))
            ORDER BY g.created_at, g.id
            """)
        let waiting = try rows.map { try $0.decode("id", as: String.self) }
        let due = backoff.withLock { backoff in
            backoff.keepOnly(Set(waiting))
            return waiting.filter { backoff.mayTry($0, at: now) }
        }
        var report = DutyReport(counts: ["games": 0, "created": 0, "failed": 0, "backing_off": waiting.count - due.count])
        var working: Set<String> = []
        for gameID in due.prefix(batchSize) {
            report.counts["games", default: 0] += 1
            do {
                let result = try await registry.ensureChannels(gameID: gameID)
                working.insert(Self.databaseCause)
                report.counts["created", default: 0] += result.created.count
                report.warnings += result.warnings
                for appResult in result.results {
                    if case .created = appResult.outcome { working.insert(Self.cause(appResult.app)) }
                }
                if result.failures.isEmpty {
                    backoff.withLock { $0.succeeded(gameID) }
                } else {
                    report.counts["failed", default: 0] += result.failures.count
                    backoff.withLock { $0.failed(gameID, at: now) }
                    for failure in result.failures {
                        report.failures.append(DutyFailure(
                            cause: Self.cause(failure.app), message: "no channel for a game in \(Self.appName(failure.app)): \(failure.error.message)",
                            fields: ["game": gameID, "error": failure.error.message]))
                    }
                }
            } catch {
                report.counts["failed", default: 0] += 1
                backoff.withLock { $0.failed(gameID, at: now) }
                report.failures.append(DutyFailure(
                    cause: Self.databaseCause, message: "ensuring a game's channels failed: \(error)",
                    fields: ["game": gameID, "error": "\(error)"]))
            }
        }
        report.recovered = working.subtracting(report.failures.map(\.cause))
        return report
    }

    /// The cause of one app's failures: an APNs outage fails every game of the app alike.
    static func cause(_ app: AppRecord) -> String { "creating channels in \(appName(app))" }

    /// The cause of failures before any app was tried (the database).
    static let databaseCause = "ensuring channels"

    private static func appName(_ app: AppRecord) -> String { "\(app.bundleID) (\(app.environment.rawValue))" }
}
