import Foundation
import Testing
@testable import ScorecastCore

@Suite struct SportProfileTests {
    @Test(arguments: [
        // The N-th minute starts at (N − 1) × 60 s; "45+2'" is the second added minute, from 46:00.
        ("1'", 0.0 as Double?), ("0'", 0), ("2'", 60), ("67'", 3960), ("45'", 2640), ("45+1'", 2700), ("45+2'", 2760),
        ("46'", 2700), ("90+4'", 5580), ("04:12", 252), ("12:00", 720), ("12.5", 12.5),
        ("1H", nil), ("", nil), ("4:75", nil), ("-3'", nil), ("90+'", nil),
    ])
    func readsClockLabels(label: String, seconds: Double?) {
        #expect(SportProfile.seconds(fromLabel: label) == seconds)
    }

    @Test func readsMatchMinutes() throws {
        let plain = try #require(SportProfile.minute(fromLabel: "67'"))
        #expect(plain.minute == 67 && plain.added == nil)
        let added = try #require(SportProfile.minute(fromLabel: "45+2'"))
        #expect(added.minute == 45 && added.added == 2)
        #expect(SportProfile.minute(fromLabel: "04:12") == nil)
        #expect(SportProfile.minute(fromLabel: nil) == nil)
    }

    @Test(arguments: [
        ("football", "football"), ("Soccer", "football"), ("EPL", "football"), ("nba", "basketball"),
        ("basketball", "basketball"), ("MLB", "baseball"), ("curling", "generic"), ("", "generic"),
    ])
    func findsTheProfileBySportOrLeague(sport: String, profile: String) {
        #expect(SportProfile.for(sport).name == profile)
    }

    @Test func breaksHaveTheirExpectedLengths() {
        #expect(SportProfile.football.breakLength(of: "HT") == 900)
        #expect(SportProfile.football.breakLength(of: "ht") == 900)
        #expect(SportProfile.football.breakLength(of: "2H") == nil)
        #expect(SportProfile.basketball.breakLength(of: "END Q1") == 130)
        #expect(SportProfile.baseball.breakLength(of: "Mid 7th") == 300)
        #expect(SportProfile.baseball.breakLength(of: "End 3rd") == 140)
        #expect(SportProfile.baseball.breakLength(of: "Top 3rd") == nil)
        #expect(SportProfile.baseball.clockDirection == nil)
        #expect(SportProfile.basketball.clockDirection == .down)
    }

    @Test func staleDateCountsFromArrivalAndOutlastsABreak() {
        let policy = StalenessPolicy(defaultSeconds: 900)
        let event = Date(timeIntervalSince1970: 1_000_000)
        #expect(policy.staleDate(occurredAt: event, sport: "football", period: "1H") == 1_000_900)
        // An event that arrives two minutes late still stays fresh 15 minutes from arrival.
        #expect(policy.staleDate(occurredAt: event, receivedAt: event.addingTimeInterval(120), sport: "football", period: "1H") == 1_001_020)
        // A clock running fast at the feed never shortens it below the event's own time.
        #expect(policy.staleDate(occurredAt: event, receivedAt: event.addingTimeInterval(-30), sport: "football") == 1_000_900)
        // Half-time: 15 minutes of break on top, so it is not stale before the second half starts.
        #expect(policy.staleDate(occurredAt: event, sport: "football", period: "HT") == 1_001_800)
        #expect(policy.staleDate(occurredAt: event, sport: "nba", period: "END Q1") == 1_001_030)
    }
}
