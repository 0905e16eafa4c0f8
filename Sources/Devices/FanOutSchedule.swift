import Foundation
import Postgres

/// When the device fan-out next looks for work, so that an idle server does not query the
/// device tables several times a second: the earliest due time read from the tables (a
/// kick-off's lead time, a kick-off still being planned, a start's retry, a lease that runs out,
/// a token update's due time),
/// or a NOTIFY (ingest's `scorecast_outbox` after game updates, ``KickoffStore/notificationChannel``
/// when a kick-off is recorded), whichever comes first — never later than `idleLimit`, the
/// safety net for work no notification announces (updates of a game without any channel).
struct FanOutSchedule: Sendable {
    /// The longest pause between rounds by default.
    static let idleLimit: Duration = .seconds(10)

    let pool: PostgresPool

    /// The earliest time work falls due, as the tables say at `now`; `nil` when nothing is
    /// waiting. Work that is due already (a live game not yet kicked off, a start or update
    /// due in the past) returns a time at or before `now`.
    func nextDue(now: Date, lead: Duration) async throws -> Date? {
        let leadSeconds = Double(lead.components.seconds)
        let oldest = now.addingTimeInterval(-12 * 3_600)
        let row = try await pool.query("""
            SELECT LEAST(
                (SELECT min(CASE WHEN g.status = 'live' THEN \(now) ELSE g.starts_at - make_interval(secs => \(leadSeconds)) END)
                 FROM games g
                 WHERE ((g.status = 'scheduled' AND g.starts_at > \(oldest)) OR g.status = 'live')
                   AND NOT EXISTS (SELECT 1 FROM kickoffs k WHERE k.game_id = g.id)),
                (SELECT min(LEAST(created_at, \(now))) FROM kickoffs WHERE planned_at IS NULL),
                (SELECT min(COALESCE(not_before, \(now))) FROM activity_starts WHERE status = 'pending'),
                (SELECT min(lease_expires_at) FROM activity_starts WHERE status = 'sending'),
                (SELECT min(CASE WHEN lease_owner IS NULL THEN due_at ELSE GREATEST(due_at, lease_expires_at) END)
                 FROM activity_outbox)
            ) AS due
            """).first
        return try row?.decode("due", as: Date?.self)
    }

    /// When the round after one that ended at `roundEnded` runs, unless a notification comes
    /// first: at the earliest due time, but no later than `idleLimit` after the round. Pure.
    static func wakeTime(roundEnded: Date, nextDue: Date?, idleLimit: Duration) -> Date {
        let limit = roundEnded.addingTimeInterval(TimeInterval(idleLimit.components.seconds)
            + TimeInterval(idleLimit.components.attoseconds) / 1e18)
        guard let nextDue else { return limit }
        return max(roundEnded, min(nextDue, limit))
    }
}
