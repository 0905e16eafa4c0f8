import APNs
import Foundation
import Synchronization

/// The APNs credentials of each app, loaded from its `.p8` file once and kept.
///
/// An entry is reloaded when the app's team id, key id or key path changed, and dropped by
/// ``invalidate(appID:)`` after APNs refused it (an admin may replace the file and resume the
/// app). Keys are read on a thread of their own, never on Swift's cooperative pool.
public final class APNsCredentialCache: Sendable {
    private struct Entry {
        var teamID: String
        var keyID: String
        var keyPath: String
        var credentials: APNsCredentials
    }

    private let entries = Mutex<[Int64: Entry]>([:])

    /// Creates an empty store.
    public init() {}

    /// The credentials of `app`, loaded now if not cached.
    /// - Throws: `APNsClientError.invalidCredentials` naming the file or id at fault (never key material).
    public func credentials(for app: DeliveryApp) async throws(APNsClientError) -> APNsCredentials {
        let cached = entries.withLock { entries -> APNsCredentials? in
            guard let entry = entries[app.id], entry.teamID == app.teamID, entry.keyID == app.keyID,
                  entry.keyPath == app.keyPath
            else { return nil }
            return entry.credentials
        }
        if let cached { return cached }
        let loaded = try await Self.load(teamID: app.teamID, keyID: app.keyID, keyPath: app.keyPath)
        entries.withLock {
            $0[app.id] = Entry(teamID: app.teamID, keyID: app.keyID, keyPath: app.keyPath, credentials: loaded)
        }
        return loaded
    }

    /// Forgets the cached credentials of an app, so the next send reloads its key file.
    public func invalidate(appID: Int64) {
        _ = entries.withLock { $0.removeValue(forKey: appID) }
    }

    /// Reads and parses the key on a new thread: file I/O and PEM parsing block.
    private static func load(teamID: String, keyID: String, keyPath: String) async throws(APNsClientError) -> APNsCredentials {
        let result: Result<APNsCredentials, APNsClientError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                do throws(APNsClientError) {
                    continuation.resume(returning: .success(try APNsCredentials(teamID: teamID, keyID: keyID, keyFile: keyPath)))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            thread.name = "scorecast-credentials"
            thread.start()
        }
        return try result.get()
    }
}
