import Clocks
import Foundation
import ServiceBase
import Synchronization

/// Feed keys found in the last second, so that a busy feed's requests do not each look their
/// key up in Postgres: one lookup per `POST /v1/events` was most of ingest's round trips
/// (profiled: 1,039 lookups a second against ~30 ingest transactions).
///
/// A found key is kept for ``lifetime``, so a key revoked with `scorecast keys revoke` is
/// refused by every running server within that time. An unknown prefix is never kept: a key
/// created a moment ago is found at once, and a caller guessing prefixes cannot fill the cache.
/// The token itself is still checked against the key's hash on every request.
package final class APIKeyCache: Sendable {
    /// How long a found key is used without looking again.
    package static let lifetime: TimeInterval = 1
    /// Keys kept at most (a server has a handful of feeds; beyond this the cache starts over).
    static let capacity = 1_024

    private struct Entry {
        var record: APIKeyRecord
        var foundAt: Date
    }

    private let lookup: IngestAuthenticator.KeyLookup
    private let clock: any ServiceClock
    private let entries = Mutex<[String: Entry]>([:])

    /// A cache in front of `lookup`, timed by `clock`.
    package init(lookup: @escaping IngestAuthenticator.KeyLookup, clock: any ServiceClock = SystemServiceClock()) {
        self.lookup = lookup
        self.clock = clock
    }

    /// The key with this prefix, revoked or not, as found at most ``lifetime`` ago.
    package func find(prefix: String) async throws -> APIKeyRecord? {
        let now = clock.now()
        if let entry = entries.withLock({ $0[prefix] }), (0..<Self.lifetime).contains(now.timeIntervalSince(entry.foundAt)) {
            return entry.record
        }
        let record = try await lookup(prefix)
        entries.withLock { entries in
            guard let record else {
                entries[prefix] = nil
                return
            }
            if entries.count >= Self.capacity { entries.removeAll() }
            entries[prefix] = Entry(record: record, foundAt: now)
        }
        return record
    }

    /// The key `id` was recorded as used at `date` (`api_keys.last_used_at`): kept copies say
    /// so, and the requests that find them do not record it again.
    package func noteUsed(keyID id: Int64, at date: Date) {
        entries.withLock { entries in
            for (prefix, entry) in entries where entry.record.id == id {
                entries[prefix]?.record.lastUsedAt = date
            }
        }
    }
}
