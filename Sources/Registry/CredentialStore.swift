import APNs
import ScorecastCrypto
import Foundation
import Lifecycle
import Synchronization

/// Each app's APNs credentials: its `.p8` key loaded from the stored path once and kept, for
/// the registry (channel management) and the workers (sends) alike. One store per process.
///
/// Entries are keyed by team id, key id and path, so an app whose key settings changed loads
/// its new key; ``invalidate(_:)`` drops one after APNs refused it (an admin may have replaced
/// the file in place before resuming the app). Key files are read on a thread of their own,
/// never on Swift's cooperative pool. Errors name the path and what is wrong, never key material.
package final class CredentialStore: Sendable {
    /// What identifies one loaded key.
    package struct KeyReference: Hashable, Sendable {
        package var teamID: String
        package var keyID: String
        package var path: String

        /// A team's key at `path`.
        package init(teamID: String, keyID: String, path: String) {
            self.teamID = teamID
            self.keyID = keyID
            self.path = path
        }
    }

    private let cache = Mutex<[KeyReference: APNsCredentials]>([:])

    /// Creates an empty store.
    package init() {}

    /// The credentials of `key`, loaded now if not cached.
    /// - Throws: `APNsClientError.invalidCredentials` naming the file or id at fault.
    package func credentials(_ key: KeyReference) async throws(APNsClientError) -> APNsCredentials {
        if let cached = cache.withLock({ $0[key] }) { return cached }
        let loaded = try await Self.load(key)
        cache.withLock { $0[key] = loaded }
        return loaded
    }

    /// The credentials of a registered app, for channel management.
    /// - Throws: `RegistryError.credentialsUnusable` saying how to fix the app.
    package func credentials(for app: AppRecord) async throws(RegistryError) -> APNsCredentials {
        do {
            return try await credentials(KeyReference(teamID: app.teamID, keyID: app.keyID, path: app.keyPath))
        } catch {
            throw RegistryError(
                .credentialsUnusable,
                "the APNs key of \(app.bundleID) (\(app.environment)) cannot be used: \(error.message) (fix it with `scorecast apps update \(app.bundleID) --key-file …`)")
        }
    }

    /// Forgets one key, so its next use reads the file again.
    package func invalidate(_ key: KeyReference) {
        _ = cache.withLock { $0.removeValue(forKey: key) }
    }

    /// Forgets every cached key.
    package func removeAll() {
        cache.withLock { $0.removeAll() }
    }

    /// Checks that `path` is a readable, unencrypted P-256 private key and returns it, for
    /// `apps add`/`update`; the error names the option and the path.
    package static func checkKeyFile(_ path: String, option: String = "--key-file") throws(RegistryError) -> P256PrivateKey {
        do {
            return try P256PrivateKey(contentsOfFile: path)
        } catch let error as CryptoError {
            throw RegistryError(.invalidInput, "\(option): \(error.context)")
        } catch {
            throw RegistryError(.invalidInput, "\(option): \(error)")
        }
    }

    /// Reads and parses the key on the blocking executor: file I/O and PEM parsing block.
    private static func load(_ key: KeyReference) async throws(APNsClientError) -> APNsCredentials {
        let result: Result<APNsCredentials, APNsClientError>
        do {
            result = try await BlockingExecutor.shared.run {
                do throws(APNsClientError) {
                    return .success(try APNsCredentials(teamID: key.teamID, keyID: key.keyID, keyFile: key.path))
                } catch {
                    return .failure(error)
                }
            }
        } catch {
            throw APNsClientError(.cancelled, "loading the key \(key.keyID) was cancelled", neverProcessed: true)
        }
        return try result.get()
    }
}
