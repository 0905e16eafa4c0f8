import APNs
import Crypto
import Synchronization

/// Each app's APNs credentials, its `.p8` key loaded once from the stored path and kept for
/// the life of the process. Errors name the path and what is wrong, never key material.
public final class CredentialStore: Sendable {
    private struct Key: Hashable {
        let teamID: String
        let keyID: String
        let path: String
    }

    private let cache = Mutex<[Key: APNsCredentials]>([:])

    /// Creates an empty store.
    public init() {}

    /// The credentials of `app`, loading its key file on first use.
    public func credentials(for app: AppRecord) throws(RegistryError) -> APNsCredentials {
        let key = Key(teamID: app.teamID, keyID: app.keyID, path: app.keyPath)
        if let cached = cache.withLock({ $0[key] }) { return cached }
        let privateKey: P256PrivateKey
        do {
            // A few hundred bytes from a local file, once per app and process.
            privateKey = try P256PrivateKey(contentsOfFile: app.keyPath)
        } catch {
            throw RegistryError(
                .credentialsUnusable,
                "the APNs key of \(app.bundleID) (\(app.environment)) cannot be used: \(error) (fix it with `scorecast apps update \(app.bundleID) --key-file …`)")
        }
        let credentials: APNsCredentials
        do {
            credentials = try APNsCredentials(teamID: app.teamID, keyID: app.keyID, privateKey: privateKey)
        } catch {
            throw RegistryError(.credentialsUnusable, "the APNs credentials of \(app.bundleID) (\(app.environment)) are unusable: \(error.message)")
        }
        cache.withLock { $0[key] = credentials }
        return credentials
    }

    /// Forgets every cached key (after an app's key file changed).
    public func removeAll() {
        cache.withLock { $0.removeAll() }
    }

    /// Checks that `path` is a readable, unencrypted P-256 private key and returns it, for
    /// `apps add`/`update`; the error names the option and the path.
    public static func checkKeyFile(_ path: String, option: String = "--key-file") throws(RegistryError) -> P256PrivateKey {
        do {
            return try P256PrivateKey(contentsOfFile: path)
        } catch let error as CryptoError {
            throw RegistryError(.invalidInput, "\(option): \(error.context)")
        } catch {
            throw RegistryError(.invalidInput, "\(option): \(error)")
        }
    }
}
