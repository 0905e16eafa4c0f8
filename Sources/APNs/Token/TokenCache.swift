import Clocks
import Foundation
import ScorecastLogging
import Synchronization

/// One provider token per team, shared by every connection and request of the process, and
/// renewed when it reaches a configured age inside Apple's window: a token younger than 20
/// minutes on a connection gets `TooManyProviderTokenUpdates`, one older than 60 minutes
/// `ExpiredProviderToken` (apns.md §6).
///
/// Time comes from an injected clock so renewal is tested without waiting.
public final class TokenCache: Sendable {
    /// The youngest renewal age Apple tolerates.
    public static let minimumRenewalAge: Duration = .seconds(20 * 60)
    /// The oldest renewal age accepted: a minute of margin before Apple's 60-minute expiry.
    public static let maximumRenewalAge: Duration = .seconds(59 * 60)
    /// The default renewal age: in the middle of Apple's window.
    public static let defaultRenewalAge: Duration = .seconds(40 * 60)

    /// Age at which a token is replaced.
    public let renewalAge: Duration
    private let renewalSeconds: Int
    private let clock: any ServiceClock
    private let logger: Logger
    private let tokens = Mutex<[String: ProviderToken]>([:])

    /// Creates an empty cache.
    /// - Parameters:
    ///   - renewalAge: between 20 and 59 minutes.
    ///   - clock: the service's clock (the system's by default); a token's `iat` is its wall time.
    /// - Throws: `APNsClientError.invalidConfiguration` for an age outside 20–59 minutes.
    public init(renewalAge: Duration = TokenCache.defaultRenewalAge, logger: Logger = Logger(label: "apns-token"),
                clock: any ServiceClock = SystemServiceClock()) throws(APNsClientError) {
        guard renewalAge >= Self.minimumRenewalAge, renewalAge <= Self.maximumRenewalAge else {
            throw APNsClientError(.invalidConfiguration,
                                  "the token renewal age must be 20–59 minutes, got \(renewalAge.components.seconds) s")
        }
        self.renewalAge = renewalAge
        self.renewalSeconds = Int(renewalAge.components.seconds)
        self.clock = clock
        self.logger = logger
    }

    /// The current token for `credentials`' team, signing a new one when there is none, it was
    /// made by another key, it reached the renewal age, or the clock went back before it.
    public func token(for credentials: APNsCredentials) throws(APNsClientError) -> ProviderToken {
        let nowSeconds = Int(clock.now().timeIntervalSince1970)
        // Signing happens under the lock so concurrent requests never mint two tokens for one
        // team (each extra token would count as a token update on some connection).
        return try tokens.withLock { (cache: inout [String: ProviderToken]) throws(APNsClientError) -> ProviderToken in
            if let current = cache[credentials.teamID], current.keyID == credentials.keyID {
                let age = nowSeconds - current.issuedAt
                if age >= 0 && age < renewalSeconds { return current }
            }
            let fresh = try ProviderToken(credentials: credentials, issuedAt: nowSeconds)
            let previous = cache.updateValue(fresh, forKey: credentials.teamID)
            logger.info("provider token signed", [
                "team": credentials.teamID, "key": credentials.keyID,
                "previous_age_s": previous.map { String(nowSeconds - $0.issuedAt) } ?? "none",
            ])
            return fresh
        }
    }

    /// Drops `token` after APNs called it expired, so the next `token(for:)` signs a new one.
    /// A token that was already replaced is left alone: many requests failing with the same
    /// old token cause one renewal, not one each.
    public func invalidate(_ token: ProviderToken) {
        tokens.withLock { cache in
            if cache[token.teamID] == token { cache[token.teamID] = nil }
        }
    }
}
