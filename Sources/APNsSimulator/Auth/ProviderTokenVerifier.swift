import ScorecastCrypto
import Foundation
import Synchronization
import JSON

/// Checks provider tokens (ES256 JWTs, apns.md §6) against the registered teams, verifying each
/// distinct token once and caching the verdict. Time-dependent checks (age) are the caller's,
/// made on every request from the cached `issuedAt`.
final class ProviderTokenVerifier: Sendable {
    /// Who a valid token speaks for.
    struct Identity: Sendable, Equatable {
        let teamID: String
        let keyID: String
        let bundleIDs: Set<String>
    }

    /// The time-independent judgement of one token.
    enum Verdict: Sendable, Equatable {
        /// Signed by a registered key whose team matches `iss`; issued at `issuedAt` (UNIX seconds).
        case valid(Identity, issuedAt: Double)
        /// Malformed, unknown `kid`, wrong `iss`, wrong algorithm or bad signature.
        case invalid
    }

    private struct Registered {
        let team: SimulatorTeam
        let key: P256PublicKey
    }

    private struct Registry {
        var byKeyID: [String: Registered] = [:]
        var cache: [String: Verdict] = [:]
        /// Bumped on every change of teams, so per-connection caches know to look again.
        var generation = 0
    }

    /// Verdicts kept before the cache is emptied and refilled (tokens live up to an hour, so a
    /// busy simulator sees few distinct ones).
    static let cacheLimit = 4096

    private let registry = Mutex(Registry())
    /// A lock-free copy of `Registry.generation`, read on every request.
    private let currentGeneration = Atomic<Int>(0)

    /// Registers the given teams.
    init(teams: [SimulatorTeam]) throws(SimulatorError) {
        for team in teams { try register(team) }
    }

    /// Adds a team, or replaces the one with the same key id; clears cached verdicts.
    func register(_ team: SimulatorTeam) throws(SimulatorError) {
        let key = try TeamRules.publicKey(of: team)
        registry.withLock { registry in
            registry.byKeyID[team.keyID] = Registered(team: team, key: key)
            registry.cache.removeAll()
            registry.generation += 1
            currentGeneration.store(registry.generation, ordering: .releasing)
        }
    }

    /// Removes the team registered under `keyID`; `false` if there was none.
    func unregister(keyID: String) -> Bool {
        registry.withLock { registry in
            guard registry.byKeyID.removeValue(forKey: keyID) != nil else { return false }
            registry.cache.removeAll()
            registry.generation += 1
            currentGeneration.store(registry.generation, ordering: .releasing)
            return true
        }
    }

    /// Every registered team, by key id.
    var teams: [SimulatorTeam] {
        registry.withLock { $0.byKeyID.values.map(\.team) }.sorted { ($0.teamID, $0.keyID) < ($1.teamID, $1.keyID) }
    }

    /// The current registry generation.
    var generation: Int { currentGeneration.load(ordering: .acquiring) }

    /// The verdict on `token` and the generation it belongs to.
    func verdict(for token: String) -> (Verdict, generation: Int) {
        let (cached, generation) = registry.withLock { ($0.cache[token], $0.generation) }
        if let cached { return (cached, generation) }
        // A miss verifies outside the lock: an ECDSA check takes ~100 µs.
        let verdict = judge(token)
        registry.withLock { registry in
            guard registry.generation == generation else { return }
            if registry.cache.count >= Self.cacheLimit { registry.cache.removeAll() }
            registry.cache[token] = verdict
        }
        return (verdict, generation)
    }

    /// Full verification: three base64url parts, header `{"alg":"ES256","kid":…}`, claims
    /// `{"iss":…,"iat":…}`, a registered `kid` whose team is `iss`, a valid signature.
    private func judge(_ token: String) -> Verdict {
        guard let parts = try? JWS.parse(token),
              let header = try? JSONCoding.decode(Header.self, from: parts.header),
              let claims = try? JSONCoding.decode(Claims.self, from: parts.payload),
              header.alg == "ES256" else {
            return .invalid
        }
        let keyID = header.kid
        let issuer = claims.iss
        let issuedAt = claims.iat
        guard let registered = registry.withLock({ $0.byKeyID[keyID] }),
              registered.team.teamID == issuer,
              JWS.verifyES256(parts, key: registered.key) else {
            return .invalid
        }
        let identity = Identity(teamID: issuer, keyID: keyID, bundleIDs: Set(registered.team.bundleIDs))
        return .valid(identity, issuedAt: issuedAt)
    }

    /// The JOSE header members APNs reads.
    private struct Header: Decodable {
        let alg: String
        let kid: String
    }

    /// The claims APNs reads: issuer (team id) and issued-at (UNIX seconds, a JSON number).
    private struct Claims: Decodable {
        let iss: String
        let iat: Double
    }
}
