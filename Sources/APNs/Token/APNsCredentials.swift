import ScorecastCrypto

/// What signs an app's provider tokens: the Apple Developer team id, the id of the APNs auth
/// key, and that key (`.p8`, P-256). Its description shows the ids only, never the key.
public struct APNsCredentials: Sendable, CustomStringConvertible {
    /// The 10-character team id (the JWT's `iss`).
    public let teamID: String
    /// The 10-character key id (the JWT header's `kid`).
    public let keyID: String
    /// The team's APNs auth key.
    public let privateKey: P256PrivateKey

    /// Creates credentials after checking both ids.
    /// - Throws: `APNsClientError.invalidCredentials` naming the id that is malformed.
    public init(teamID: String, keyID: String, privateKey: P256PrivateKey) throws(APNsClientError) {
        try Self.checkID(teamID, name: "team id")
        try Self.checkID(keyID, name: "key id")
        self.teamID = teamID
        self.keyID = keyID
        self.privateKey = privateKey
    }

    /// Loads the key from an Apple `.p8` file and creates credentials.
    /// - Throws: `APNsClientError.invalidCredentials` naming the file or id that is wrong.
    public init(teamID: String, keyID: String, keyFile: String) throws(APNsClientError) {
        let key: P256PrivateKey
        do {
            key = try P256PrivateKey(contentsOfFile: keyFile)
        } catch {
            throw APNsClientError(.invalidCredentials, "cannot load the APNs auth key: \(error)")
        }
        try self.init(teamID: teamID, keyID: keyID, privateKey: key)
    }

    /// `team <id> key <id>`: never the key.
    public var description: String { "APNsCredentials(team \(teamID), key \(keyID))" }

    /// Apple's team and key ids are 10 characters, upper-case letters and digits.
    private static func checkID(_ value: String, name: String) throws(APNsClientError) {
        let valid = value.utf8.count == 10 && value.utf8.allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard valid else {
            throw APNsClientError(.invalidCredentials,
                                  "the \(name) must be 10 upper-case letters or digits, got \(value.utf8.count) characters \"\(value.prefix(16))\"")
        }
    }
}
