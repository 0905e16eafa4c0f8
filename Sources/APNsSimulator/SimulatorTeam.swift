/// A developer team the simulator accepts provider tokens from: the team id (`iss`), the key id
/// (`kid`), the public half of the team's `.p8` key, and the bundle ids the team may push to.
public struct SimulatorTeam: Sendable, Equatable, Codable {
    /// The 10-character team id, expected in the token's `iss` claim.
    public var teamID: String
    /// The 10-character key id, expected in the token's `kid` header.
    public var keyID: String
    /// The P-256 public key (SubjectPublicKeyInfo PEM, `-----BEGIN PUBLIC KEY-----`).
    public var publicKeyPEM: String
    /// The apps (bundle ids) this team may manage channels of and send to.
    public var bundleIDs: [String]

    /// Creates a team.
    public init(teamID: String, keyID: String, publicKeyPEM: String, bundleIDs: [String]) {
        self.teamID = teamID
        self.keyID = keyID
        self.publicKeyPEM = publicKeyPEM
        self.bundleIDs = bundleIDs
    }
}
