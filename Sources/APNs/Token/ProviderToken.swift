import ScorecastCrypto
import Foundation
import JSON

/// One APNs provider token: an ES256 JWT with header `{"alg":"ES256","kid":…}` and claims
/// `{"iss":…,"iat":…}` (apns.md §6). Its description shows team, key and age, never the token.
public struct ProviderToken: Sendable, Equatable, CustomStringConvertible {
    /// The team that issued it (`iss`).
    public let teamID: String
    /// The key that signed it (`kid`).
    public let keyID: String
    /// When it was issued, in UNIX seconds (`iat`).
    public let issuedAt: Int
    /// The compact JWT. Internal: it is a credential and leaves the module only on the wire.
    let jwt: String
    /// The `authorization` header value, `bearer <jwt>`: made once, sent with every request.
    let authorization: String

    /// Signs a new token for `credentials`, issued at `issuedAt` (UNIX seconds).
    /// - Throws: `APNsClientError.invalidCredentials` if the key cannot sign.
    public init(credentials: APNsCredentials, issuedAt: Int) throws(APNsClientError) {
        let header: JSONValue = ["alg": "ES256", "kid": .string(credentials.keyID)]
        let claims: JSONValue = ["iss": .string(credentials.teamID), "iat": .integer(issuedAt)]
        do {
            jwt = try JWS.signES256(header: header.encoded(), payload: claims.encoded(), key: credentials.privateKey)
        } catch {
            throw APNsClientError(.invalidCredentials, "cannot sign a provider token for \(credentials): \(error)")
        }
        authorization = "bearer " + jwt
        teamID = credentials.teamID
        keyID = credentials.keyID
        self.issuedAt = issuedAt
    }

    /// `ProviderToken(team …, key …, iat …)`: never the token itself.
    public var description: String { "ProviderToken(team \(teamID), key \(keyID), iat \(issuedAt))" }
}
