import Foundation
import Postgres
import Registry
import Synchronization

/// Retires the channels of finished games (`RetireDecision`): marks them `retiring` when their
/// game ends and deletes them at APNs through the registry (`ChannelRegistry.deleteChannel`)
/// once `SCORECAST_RETIRE_GRACE_MINUTES` have passed. Then checks every app's channel count
/// against the limit and warns as one nears it (`ChannelLimitWatch`).
///
/// A channel is retired only when every game bound to it is over (`final` or `cancelled`).
/// At most `maxDeletions` APNs deletions per round; the rest wait for the next.
package final class RetireDuty: PollerDuty {
    /// `retire`.
    package let name = "retire"
    /// How often it runs.
    package let interval: Duration
    /// Time between a game's end and its channels' deletion.
    package let grace: Duration
    /// APNs deletions per round at most.
    package let maxDeletions: Int
    private let registry: ChannelRegistry
    private let watch: Mutex<ChannelLimitWatch>

    /// Creates the duty.
    package init(registry: ChannelRegistry, interval: Duration, grace: Duration, channelLimit: Int, maxDeletions: Int = 50) {
        self.registry = registry
        self.interval = interval
        self.grace = grace
        self.maxDeletions = max(1, maxDeletions)
        self.watch = Mutex(ChannelLimitWatch(limit: channelLimit))
    }

    private struct Candidate {
        let id: Int64
        let status: ChannelRecord.Status
        let finishedAt: Date
        let appPaused: Bool
    }

    /// Retires what is due at `now` and checks the channel limits.
    package func run(at now: Date) async throws -> DutyReport {
        let pool = registry.pool
        let rows = try await pool.query("""
            SELECT c.id, c.status, bool_or(a.paused_at IS NOT NULL) AS paused,
                   max(coalesce(g.finished_at, g.updated_at)) AS finished_at
            FROM channels c
            JOIN apps a ON a.id = c.app_id
            JOIN channel_bindings b ON b.channel_id = c.id
            JOIN games g ON g.id = b.game_id
            WHERE c.status IN ('active', 'retiring')
            GROUP BY c.id, c.status
            HAVING bool_and(g.status IN ('final', 'cancelled'))
            ORDER BY finished_at, c.id
            LIMIT 5000
            """)
        let candidates = try rows.map { row in
            Candidate(
                id: try row.decode("id"),
                status: ChannelRecord.Status(rawValue: try row.decode("status", as: String.self)) ?? .active,
                finishedAt: try row.decode("finished_at"), appPaused: try row.decode("paused"))
        }
        var toMark: [Int64] = []
        var toDelete: [Int64] = []
        for candidate in candidates {
            switch RetireDecision.decide(status: candidate.status, finishedAt: candidate.finishedAt, appPaused: candidate.appPaused, now: now, grace: grace) {
            case .keep: break
            case .markRetiring: toMark.append(candidate.id)
            case .delete: toDelete.append(candidate.id)
            }
        }
        var report = DutyReport()
        // `updated_at` is an audit column (no rule reads a channel's): it keeps the database's clock.
        report.counts["marked_retiring"] = toMark.isEmpty ? 0 : try await pool.execute("""
            UPDATE channels SET status = 'retiring', updated_at = now() WHERE id = ANY(\(toMark)) AND status = 'active'
            """)
        var deleted = 0
        var failed = 0
        for id in toDelete.prefix(maxDeletions) {
            do {
                _ = try await registry.deleteChannel(id: id, reason: .retired)
                deleted += 1
            } catch {
                failed += 1
                report.warnings.append("retiring channel \(id) failed: \(error)")
            }
        }
        report.counts["deleted"] = deleted
        report.counts["delete_failed"] = failed
        report.counts["deletions_waiting"] = max(0, toDelete.count - maxDeletions)

        let usage = try await pool.query("""
            SELECT a.id, a.bundle_id, a.environment,
                   (SELECT count(*) FROM channels c WHERE c.app_id = a.id AND c.status IN ('active', 'retiring'))
                 + (SELECT count(*) FROM channel_orphans o WHERE o.app_id = a.id) AS used
            FROM apps a
            """)
        var counts: [Int64: Int] = [:]
        var names: [Int64: String] = [:]
        for row in usage {
            let id: Int64 = try row.decode("id")
            counts[id] = try row.decode("used")
            names[id] = "\(try row.decode("bundle_id", as: String.self)) (\(try row.decode("environment", as: String.self)))"
        }
        report.warnings += watch.withLock { $0.warnings(counts: counts, names: names, now: now) }
        return report
    }
}
