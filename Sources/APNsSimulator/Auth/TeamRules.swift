import ScorecastCrypto

/// Checks on a team before it is registered.
enum TeamRules {
    /// Throws naming the first problem: ids must be 1–64 ASCII letters or digits (Apple's are 10),
    /// bundle ids non-empty without `/` or spaces, the key a P-256 public key.
    static func validate(_ team: SimulatorTeam) throws(SimulatorError) {
        _ = try publicKey(of: team)
    }

    /// Validates `team` and loads its public key.
    static func publicKey(of team: SimulatorTeam) throws(SimulatorError) -> P256PublicKey {
        for (label, value) in [("team id", team.teamID), ("key id", team.keyID)] {
            guard !value.isEmpty, value.utf8.count <= 64,
                  value.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) }) else {
                throw .invalidConfiguration("\(label) '\(value)' must be 1–64 letters or digits")
            }
        }
        guard !team.bundleIDs.isEmpty else {
            throw .invalidConfiguration("team \(team.teamID) has no bundle ids")
        }
        for bundleID in team.bundleIDs {
            guard !bundleID.isEmpty, !bundleID.contains("/"), !bundleID.contains(where: \.isWhitespace) else {
                throw .invalidConfiguration("team \(team.teamID): bundle id '\(bundleID)' must be non-empty, without '/' or spaces")
            }
        }
        do {
            return try P256PublicKey(pem: team.publicKeyPEM)
        } catch {
            throw .invalidTeamKey(teamID: team.teamID, keyID: team.keyID, reason: "\(error)")
        }
    }
}
