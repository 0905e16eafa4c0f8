import APNsSimulator
import ScorecastCrypto
import Foundation
import TestSupport

/// A developer team's signing key as Apple issues it: a P-256 PKCS#8 `.p8` made with the
/// `openssl` CLI (not with our own key code), with its public half for the simulator.
struct TeamKey: Sendable {
    let teamID: String
    let keyID: String
    let privateKeyPath: String
    let publicKeyPEM: String
    let privateKey: P256PrivateKey

    /// The simulator's view of this team, allowed to use `bundleIDs`.
    func team(bundleIDs: [String]) -> SimulatorTeam {
        SimulatorTeam(teamID: teamID, keyID: keyID, publicKeyPEM: publicKeyPEM, bundleIDs: bundleIDs)
    }

    /// A provider token (ES256 JWT) issued at `issuedAt` (UNIX seconds, now by default),
    /// signed with Crypto's JWS.
    func token(issuedAt: Int = Int(Date().timeIntervalSince1970), keyID: String? = nil, teamID: String? = nil) throws -> String {
        let header = #"{"alg":"ES256","kid":"\#(keyID ?? self.keyID)"}"#
        let claims = #"{"iss":"\#(teamID ?? self.teamID)","iat":\#(issuedAt)}"#
        return try JWS.signES256(header: Array(header.utf8), payload: Array(claims.utf8), key: privateKey)
    }

    /// A token signed by PyJWT (an independent implementation), from Python.
    func pyJWTToken(issuedAt: Int = Int(Date().timeIntervalSince1970)) async throws -> String {
        let script = """
        import jwt, sys
        key = open(sys.argv[1]).read()
        print(jwt.encode({"iss": sys.argv[2], "iat": int(sys.argv[4])}, key, algorithm="ES256", headers={"kid": sys.argv[3]}))
        """
        let output = try await ExternalTool.run("python3", ["-c", script, privateKeyPath, teamID, keyID, String(issuedAt)])
        guard output.status == 0 else { throw FixtureError("PyJWT failed: \(output.stderr)") }
        return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Generates a key with `openssl ecparam | openssl pkcs8` in a fresh temporary folder.
    static func generate(teamID: String, keyID: String) async throws -> TeamKey {
        let folder = try TemporaryFolder("apns-sim-key").path
        let privatePath = folder + "/AuthKey_\(keyID).p8"
        let publicPath = folder + "/AuthKey_\(keyID).pub.pem"
        let generated = try await ExternalTool.run("sh", ["-c",
            "openssl ecparam -genkey -name prime256v1 -noout | openssl pkcs8 -topk8 -nocrypt -out \"$1\" && openssl pkey -in \"$1\" -pubout -out \"$2\"",
            "sh", privatePath, publicPath])
        guard generated.status == 0 else { throw FixtureError("openssl failed: \(generated.stderr)") }
        let privatePEM = try String(contentsOfFile: privatePath, encoding: .utf8)
        let publicPEM = try String(contentsOfFile: publicPath, encoding: .utf8)
        return TeamKey(teamID: teamID, keyID: keyID, privateKeyPath: privatePath, publicKeyPEM: publicPEM,
                       privateKey: try P256PrivateKey(pem: privatePEM))
    }
}

/// Keys made once per test run (openssl takes a few milliseconds each).
actor TeamKeys {
    static let shared = TeamKeys()
    /// The generation of each key, started once: concurrent first callers await the same one.
    /// (Caching only the finished key let two tests generate two keys across the `await` — the
    /// actor is reentrant there — and one of them then signed with a key its simulator did not
    /// trust: a flaky InvalidProviderToken.)
    private var keys: [String: Task<TeamKey, any Error>] = [:]

    /// The key of team `teamID` / key `keyID`, generated on first use.
    func key(teamID: String = "TEAM000001", keyID: String = "KEY0000001") async throws -> TeamKey {
        if let pending = keys[keyID] { return try await pending.value }
        let pending = Task { try await TeamKey.generate(teamID: teamID, keyID: keyID) }
        keys[keyID] = pending
        return try await pending.value
    }
}

/// A test setup failure.
struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
