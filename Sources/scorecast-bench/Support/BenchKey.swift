import APNs
import ScorecastCrypto
import Foundation

/// The benchmark's developer team: a freshly generated P-256 key written as an Apple `.p8` file
/// (for aioapns and `scorecast apps add`) with its public half (for the simulator's `--team`).
struct BenchKey: Sendable {
    /// The team id used everywhere in the run.
    static let teamID = "BENCHTEAM1"
    /// The key id used everywhere in the run.
    static let keyID = "BENCHKEY01"

    /// The private key.
    let privateKey: P256PrivateKey
    /// Path of the `.p8` (PKCS#8 PEM) file.
    let privateKeyPath: String
    /// Path of the public key (SubjectPublicKeyInfo PEM).
    let publicKeyPath: String

    /// Generates a key and writes both files into `folder`.
    static func generate(in folder: String) throws -> BenchKey {
        let key = try P256PrivateKey.generate()
        let privatePath = folder + "/AuthKey_\(keyID).p8"
        let publicPath = folder + "/AuthKey_\(keyID).pub.pem"
        guard FileManager.default.createFile(atPath: privatePath, contents: Data(key.pkcs8PEM.utf8),
                                             attributes: [.posixPermissions: 0o600]),
              FileManager.default.createFile(atPath: publicPath, contents: Data(key.publicKey.pem.utf8)) else {
            throw BenchError("cannot write the benchmark key files into \(folder)")
        }
        return BenchKey(privateKey: key, privateKeyPath: privatePath, publicKeyPath: publicPath)
    }

    /// The credentials our client signs with.
    func credentials() throws -> APNsCredentials {
        try APNsCredentials(teamID: Self.teamID, keyID: Self.keyID, privateKey: privateKey)
    }

    /// A provider token (ES256 JWT) issued now, for `h2load`'s `authorization` header: the same
    /// header, claims and signature scheme as the client's own tokens (apns.md §6).
    func providerToken() throws -> String {
        let header = #"{"alg":"ES256","kid":"\#(Self.keyID)"}"#
        let claims = #"{"iss":"\#(Self.teamID)","iat":\#(Int(Date().timeIntervalSince1970))}"#
        return try JWS.signES256(header: Array(header.utf8), payload: Array(claims.utf8), key: privateKey)
    }

    /// The simulator's `--team` value allowing `bundleIDs`.
    func simulatorTeamArgument(bundleIDs: [String]) -> String {
        "\(Self.teamID):\(Self.keyID):\(publicKeyPath):\(bundleIDs.joined(separator: ","))"
    }
}
