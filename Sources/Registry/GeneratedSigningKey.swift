import APNsCore
import Foundation
import ScorecastCrypto
import ServiceBase

/// A signing key made here instead of issued by Apple: only the built-in simulator accepts it.
/// `scorecast apps add --generate-key` and the demo's app use it, with random team and key ids.
package enum GeneratedSigningKey {
    /// Where a generated key for an app lives: `<state>/keys/<bundle>-<environment>.p8`.
    package static func path(_ configuration: Configuration, bundleID: String, environment: APNsEnvironment) -> String {
        configuration.stateDirectory.appendingPathComponent("keys").appendingPathComponent("\(bundleID)-\(environment.rawValue).p8").path
    }

    /// Ten random upper-case letters and digits, like Apple's team and key ids.
    package static func randomAppleID() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var result = ""
        while result.count < 10 {
            // 252 = 7 × 36: bytes at or above it are dropped so every character is equally likely.
            for byte in SecureRandom.bytes(16) where byte < 252 && result.count < 10 {
                result.append(alphabet[Int(byte) % alphabet.count])
            }
        }
        return result
    }

    /// Creates a P-256 key at `path` (its folder 0700, the file 0600, never overwriting one that
    /// exists) and returns its public half in PEM, for registering with the simulator. A failed
    /// write leaves no file behind.
    package static func write(to path: String) throws -> String {
        let key: P256PrivateKey
        do {
            key = try P256PrivateKey.generate()
        } catch {
            throw RegistryError(.credentialsUnusable, "could not generate a key: \(error)")
        }
        let folder = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw RegistryError(.credentialsUnusable, "cannot create \(folder): \(error.localizedDescription)")
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw RegistryError(.credentialsUnusable, "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        let bytes = Array(key.pkcs8PEM.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                close(descriptor)
                unlink(path)
                throw RegistryError(.credentialsUnusable, "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            written += count
        }
        close(descriptor)
        return key.publicKey.pem
    }
}
