/// The token rules APNs applies per connection (apns.md §6), with the connection's memory of
/// the token it accepted last. Confined to the connection's loop thread.
final class ProviderAuthentication {
    /// Timing rules.
    struct Policy: Sendable {
        /// Older tokens get `ExpiredProviderToken`.
        let lifetime: Double
        /// A switch to a token issued sooner than this after the current one gets
        /// `TooManyProviderTokenUpdates`.
        let refreshMinimum: Double
        /// Tokens issued further than this in the future are refused as invalid (a token with a
        /// millisecond `iat` would otherwise never expire). The tolerance itself is unconfirmed.
        let futureTolerance: Double = 300
    }

    /// The whole `authorization` value last accepted (compared first: it is usually the very
    /// same String, so the check costs nothing).
    private var acceptedHeader: String?
    private var acceptedToken: String?
    private var acceptedIdentity: ProviderTokenVerifier.Identity?
    private var acceptedIssuedAt: Double = 0
    private var acceptedGeneration = -1

    /// Judges the `authorization` header of one request at time `now`, remembering the token
    /// when it is accepted. Returns who the request speaks for, or the reason to refuse it.
    func authenticate(
        header: String?, verifier: ProviderTokenVerifier, policy: Policy, now: Double
    ) -> Result<ProviderTokenVerifier.Identity, APNsReason> {
        guard let header else { return .failure(.missingProviderToken) }
        let currentGeneration = verifier.generation
        if header == acceptedHeader, let acceptedIdentity, acceptedGeneration == currentGeneration {
            // The connection's current token again: only its age can have changed.
            if acceptedIssuedAt > now + policy.futureTolerance { return .failure(.invalidProviderToken) }
            if now - acceptedIssuedAt > policy.lifetime { return .failure(.expiredProviderToken) }
            return .success(acceptedIdentity)
        }
        guard let token = Self.bearerToken(header) else { return .failure(.missingProviderToken) }

        let identity: ProviderTokenVerifier.Identity
        let issuedAt: Double
        let generation: Int
        if token == acceptedToken, let acceptedIdentity, acceptedGeneration == currentGeneration {
            // Fast path: the connection's current token, already verified.
            identity = acceptedIdentity
            issuedAt = acceptedIssuedAt
            generation = acceptedGeneration
        } else {
            let (verdict, verdictGeneration) = verifier.verdict(for: token)
            guard case .valid(let verified, let verifiedIssuedAt) = verdict else { return .failure(.invalidProviderToken) }
            identity = verified
            issuedAt = verifiedIssuedAt
            generation = verdictGeneration
        }

        if issuedAt > now + policy.futureTolerance { return .failure(.invalidProviderToken) }
        if now - issuedAt > policy.lifetime { return .failure(.expiredProviderToken) }

        if let acceptedToken, acceptedToken != token, acceptedGeneration == generation,
           issuedAt - acceptedIssuedAt < policy.refreshMinimum {
            return .failure(.tooManyProviderTokenUpdates)
        }
        acceptedHeader = header
        acceptedToken = token
        acceptedIdentity = identity
        acceptedIssuedAt = issuedAt
        acceptedGeneration = generation
        return .success(identity)
    }

    /// The token of `bearer <token>` (scheme case-insensitive), or `nil`.
    static func bearerToken(_ header: String) -> String? {
        let utf8 = header.utf8
        guard utf8.count > 7 else { return nil }
        let scheme = utf8.prefix(7)
        guard scheme.elementsEqual("bearer ".utf8) || String(decoding: scheme, as: UTF8.self).lowercased() == "bearer " else {
            return nil
        }
        let token = String(decoding: utf8.dropFirst(7), as: UTF8.self).trimmingASCIISpaces()
        return token.isEmpty ? nil : token
    }
}

extension String {
    /// The string without leading and trailing ASCII spaces and tabs.
    func trimmingASCIISpaces() -> String {
        let utf8 = self.utf8
        guard let first = utf8.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }) else { return "" }
        guard let last = utf8.lastIndex(where: { $0 != 0x20 && $0 != 0x09 }) else { return "" }
        if first == utf8.startIndex && utf8.index(after: last) == utf8.endIndex { return self }
        return String(decoding: utf8[first...last], as: UTF8.self)
    }
}
