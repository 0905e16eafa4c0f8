import ScorecastCrypto
import Foundation

/// The simulator's TLS identity: the given certificate and key, or a self-signed pair kept in
/// the state folder (created once, then reused so clients can keep trusting the same CA file).
enum SimulatorCertificate {
    /// Validity of a generated certificate, in days.
    static let validityDays = 825

    /// The certificate and key paths to serve, generating a pair when none is configured.
    /// A generated pair is regenerated when it cannot be loaded (e.g. a damaged file).
    static func paths(for configuration: SimulatorConfiguration) throws(SimulatorError) -> (certificate: String, key: String, generated: Bool) {
        if let certificate = configuration.certificatePath, let key = configuration.privateKeyPath {
            for path in [certificate, key] where !FileManager.default.isReadableFile(atPath: path) {
                throw .file(path: path, reason: "cannot be read")
            }
            return (certificate, key, false)
        }
        let folder = URL(fileURLWithPath: configuration.stateDirectory).appendingPathComponent("tls")
        let certificate = folder.appendingPathComponent("apns-sim-ca.pem").path
        let key = folder.appendingPathComponent("apns-sim-key.pem").path
        let manager = FileManager.default
        if manager.fileExists(atPath: certificate), manager.fileExists(atPath: key),
           (try? TLSContext(certificatePath: certificate, privateKeyPath: key)) != nil {
            return (certificate, key, false)
        }
        do {
            try manager.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        } catch {
            throw .file(path: folder.path, reason: "cannot create the folder: \(error.localizedDescription)")
        }
        var names = ["localhost", "127.0.0.1", "::1"]
        if !names.contains(configuration.host) && configuration.host != "0.0.0.0" && configuration.host != "::" {
            names.append(configuration.host)
        }
        let pair: (certificatePEM: String, privateKeyPEM: String)
        do {
            pair = try SelfSignedCertificate.generate(
                commonName: "scorecast APNs simulator", subjectAlternativeNames: names, validityDays: validityDays)
        } catch {
            throw .tls("generating a self-signed certificate", "\(error)")
        }
        try write(pair.privateKeyPEM, to: key, permissions: 0o600)
        try write(pair.certificatePEM, to: certificate, permissions: 0o644)
        return (certificate, key, true)
    }

    private static func write(_ text: String, to path: String, permissions: Int) throws(SimulatorError) {
        let manager = FileManager.default
        let temporary = path + ".tmp"
        // Created with its final permissions so a private key is never readable by others.
        guard manager.createFile(atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: permissions]) else {
            throw .file(path: temporary, reason: "cannot be written")
        }
        guard rename(temporary, path) == 0 else {
            throw .file(path: path, reason: "cannot be replaced: \(String(cString: strerror(errno)))")
        }
    }
}
