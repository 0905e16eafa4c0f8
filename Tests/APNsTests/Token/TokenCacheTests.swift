import Foundation
import Synchronization
import Testing
@testable import APNs

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let seconds: Mutex<TimeInterval>

    init(_ start: TimeInterval = 1_764_453_600) { seconds = Mutex(start) }

    func advance(minutes: Double) { seconds.withLock { $0 += minutes * 60 } }
    func advance(seconds delta: TimeInterval) { seconds.withLock { $0 += delta } }
    var now: @Sendable () -> Date { { [self] in Date(timeIntervalSince1970: seconds.withLock { $0 }) } }
}

@Suite("token cache")
struct TokenCacheTests {
    @Test("one token per team, reused until the renewal age, then renewed")
    func renewal() throws {
        let clock = ManualClock()
        let cache = try TokenCache(renewalAge: .seconds(40 * 60), logger: TestLog.logger, now: clock.now)
        let credentials = try ProviderTokenTests.credentials()
        let first = try cache.token(for: credentials)
        #expect(first.issuedAt == 1_764_453_600)
        clock.advance(minutes: 39.9)
        #expect(try cache.token(for: credentials) == first)
        clock.advance(minutes: 0.1)
        let second = try cache.token(for: credentials)
        #expect(second != first)
        #expect(second.issuedAt == first.issuedAt + 40 * 60)
    }

    @Test("teams have separate tokens; another key of the same team replaces the token")
    func perTeam() throws {
        let cache = try TokenCache(logger: TestLog.logger, now: ManualClock().now)
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
        let clock = ManualClock()
        let cache = try TokenCache(logger: TestLog.logger, now: clock.now)
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
        let clock = ManualClock()
        let cache = try TokenCache(logger: TestLog.logger, now: clock.now)
        let credentials = try ProviderTokenTests.credentials()
        let first = try cache.token(for: credentials)
        clock.advance(seconds: -120)
        #expect(try cache.token(for: credentials) != first)
    }

    @Test("many concurrent callers share one token")
    func concurrentCallers() async throws {
        let cache = try TokenCache(logger: TestLog.logger, now: ManualClock().now)
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
