import Clocks
import Foundation
import Synchronization
import Testing
@testable import APNs

extension ManualServiceClock {
    /// A clock at the tests' usual start, 2025-11-29 22:00 UTC.
    static func tokenTestStart() -> ManualServiceClock { ManualServiceClock(Date(timeIntervalSince1970: 1_764_453_600)) }
}

@Suite("token cache")
struct TokenCacheTests {
    @Test("one token per team, reused until the renewal age, then renewed")
    func renewal() throws {
        let clock = ManualServiceClock.tokenTestStart()
        let cache = try TokenCache(renewalAge: .seconds(40 * 60), logger: TestLog.logger, clock: clock)
        let credentials = try ProviderTokenTests.credentials()
        let first = try cache.token(for: credentials)
        #expect(first.issuedAt == 1_764_453_600)
        clock.advance(by: .seconds(39 * 60 + 54))
        #expect(try cache.token(for: credentials) == first)
        clock.advance(by: .seconds(6))
        let second = try cache.token(for: credentials)
        #expect(second != first)
        #expect(second.issuedAt == first.issuedAt + 40 * 60)
    }

    @Test("teams have separate tokens; another key of the same team replaces the token")
    func perTeam() throws {
        let cache = try TokenCache(logger: TestLog.logger, clock: ManualServiceClock.tokenTestStart())
        let teamA = try ProviderTokenTests.credentials(team: "TEAMAAAAAA")
        let teamB = try ProviderTokenTests.credentials(team: "TEAMBBBBBB")
        let tokenA = try cache.token(for: teamA)
        let tokenB = try cache.token(for: teamB)
        #expect(tokenA.teamID == "TEAMAAAAAA" && tokenB.teamID == "TEAMBBBBBB")
        #expect(try cache.token(for: teamA) == tokenA)
        let rotated = try ProviderTokenTests.credentials(team: "TEAMAAAAAA", key: "NEWKEY0001")
        #expect(try cache.token(for: rotated).keyID == "NEWKEY0001")
    }

    @Test("invalidate renews once: a token already replaced is left alone")
    func invalidateOnce() throws {
        let clock = ManualServiceClock.tokenTestStart()
        let cache = try TokenCache(logger: TestLog.logger, clock: clock)
        let credentials = try ProviderTokenTests.credentials()
        let old = try cache.token(for: credentials)
        cache.invalidate(old)
        let renewed = try cache.token(for: credentials)
        #expect(renewed != old)
        // A second request that failed with the old token must not throw away the new one.
        cache.invalidate(old)
        #expect(try cache.token(for: credentials) == renewed)
    }

    @Test("a clock that went back renews the token")
    func clockWentBack() throws {
        let clock = ManualServiceClock.tokenTestStart()
        let cache = try TokenCache(logger: TestLog.logger, clock: clock)
        let credentials = try ProviderTokenTests.credentials()
        let first = try cache.token(for: credentials)
        clock.setWallClock(to: Date(timeIntervalSince1970: 1_764_453_600 - 120))
        #expect(try cache.token(for: credentials) != first)
    }

    @Test("a client's own token cache dates its tokens by the service clock the client is given")
    func clientClock() async throws {
        let clock = ManualServiceClock.tokenTestStart()
        let client = try APNsClient(configuration: APNsClientConfiguration(environment: .sandbox), logger: TestLog.logger, clock: clock)
        let credentials = try ProviderTokenTests.credentials()
        let first = try client.tokens.token(for: credentials)
        clock.advance(by: client.configuration.tokenRenewalAge)
        let renewed = try client.tokens.token(for: credentials)
        await client.shutdown()
        #expect(first.issuedAt == 1_764_453_600)
        #expect(renewed.issuedAt == 1_764_453_600 + Int(client.configuration.tokenRenewalAge.components.seconds))
    }

    @Test("many concurrent callers share one token")
    func concurrentCallers() async throws {
        let cache = try TokenCache(logger: TestLog.logger, clock: ManualServiceClock.tokenTestStart())
        let credentials = try ProviderTokenTests.credentials()
        let tokens = try await withThrowingTaskGroup(of: ProviderToken.self) { group in
            for _ in 0..<64 { group.addTask { try cache.token(for: credentials) } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1.jwt) }
        }
        #expect(tokens.count == 1)
    }

    @Test("renewal ages outside 20–59 minutes are refused", arguments: [
        (19 * 60 + 59, false), (20 * 60, true), (40 * 60, true), (59 * 60, true), (59 * 60 + 1, false), (60 * 60, false),
    ])
    func renewalAgeRange(seconds: Int, accepted: Bool) {
        let result = Result { () throws(APNsClientError) in try TokenCache(renewalAge: .seconds(seconds)) }
        switch result {
        case .success: #expect(accepted)
        case .failure(let error):
            #expect(!accepted)
            #expect(error.code == .invalidConfiguration)
        }
    }
}
