import Foundation
import Postgres

/// Deletes devices silent for the TTL (`SCORECAST_DEVICE_TTL_DAYS`), with their follows,
/// activity tokens and planned starts (the foreign keys cascade).
struct DeviceExpiry: Sendable {
    let pool: PostgresPool
    let ttl: Duration

    /// Deletes the devices last seen before `now − ttl`; returns how many, at most 10,000 a call.
    func run(now: Date) async throws -> Int {
        let cutoff = now.addingTimeInterval(-TimeInterval(ttl.components.seconds))
        return try await pool.execute("""
            DELETE FROM devices WHERE id IN (SELECT id FROM devices WHERE last_seen_at < \(cutoff) LIMIT 10000)
            """)
    }
}
