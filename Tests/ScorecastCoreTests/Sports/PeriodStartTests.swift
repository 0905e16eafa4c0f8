import Foundation
import ScorecastActivity
import Testing
@testable import ScorecastCore

/// What the phone's clock reads when each period begins, for every sport profile, against the
/// convention written on ``SportProfile``.
@Suite struct PeriodStartTests {
    static let start = Date(timeIntervalSince1970: 1_764_450_000)

    /// The clock the phone gets after a game begins `period` with `clock` as the feed's text.
    static func clock(
        _ profile: SportProfile, period: String, clock label: String? = nil, after previous: String? = nil
    ) throws -> ContentState.Clock? {
        var state = GameState.initial
        var seq = 0
        for (offset, period) in [previous, period].compactMap({ $0 }).enumerated() {
            seq += 1
            let event = FeedEvent(
                id: "e\(seq)", game: "g", seq: seq, occurredAt: start.addingTimeInterval(Double(offset) * 60),
                kind: offset == 0 ? .start : .period,
                scoreboard: ScoreboardUpdate(period: .set(period), clock: label.map { .set($0) } ?? .keep))
            state = try #require(state.applying(event, profile: profile).state)
        }
        return ContentStateRenderer.contentState(of: state, profile: profile, fallbackTime: .distantPast).clock
    }

    @Test(arguments: [
        ("1H", nil as String?, 0.0), ("1H", "1'", 0), ("1H", "0'", 0),
        ("2H", nil, 2700), ("2H", "46'", 2700), ("2H", "45'", 2700),
        ("ET1", nil, 5400), ("ET1", "91'", 5400), ("ET2", nil, 6300), ("ET2", "106'", 6300),
    ])
    func footballPeriodsStartOnTheMinuteTheyBegin(period: String, label: String?, seconds: Double) throws {
        let clock = try #require(try Self.clock(.football, period: period, clock: label, after: period == "1H" ? nil : "HT"))
        #expect(clock.seconds == seconds)
        #expect(clock.running && clock.direction == .up)
        // Text(timerInterval:) counts from the instant the clock read 0:00.
        let begun = Self.start.addingTimeInterval(period == "1H" ? 0 : 60)
        #expect(clock.timerInterval?.lowerBound == begun.addingTimeInterval(-seconds))
    }

    @Test func footballKickOffShowsZeroAndAddedTimeReadsAsBroadcast() throws {
        let kickOff = try #require(try Self.clock(.football, period: "1H", clock: "1'"))
        #expect(kickOff.reading(at: Self.start) == 0, "kick-off shows 0:00, not 1:00")
        #expect(kickOff.reading(at: Self.start.addingTimeInterval(59)) == 59, "still the first minute")
        #expect(SportProfile.seconds(fromLabel: "45+2'") == 2760, "46:00")
        let added = try #require(SportProfile.minute(fromLabel: "45+2'"))
        #expect(added.minute == 45 && added.added == 2, "a play in added time is listed as 45+2'")
    }

    @Test func aGamePickedUpMidPeriodKeepsTheFeedsReading() throws {
        let clock = try #require(try Self.clock(.football, period: "2H", clock: "67'"))
        #expect(clock.seconds == 3960)
    }

    @Test(arguments: [("Q1", 720.0), ("Q2", 720), ("Q3", 720), ("Q4", 720), ("OT", 300), ("OT1", 300), ("OT2", 300)])
    func basketballPeriodsStartWithTheirFullLength(period: String, seconds: Double) throws {
        let clock = try #require(try Self.clock(.basketball, period: period, after: period == "Q1" ? nil : "END Q1"))
        #expect(clock.seconds == seconds)
        #expect(clock.direction == .down)
        #expect(!clock.running, "the feed starts a basketball clock")
    }

    @Test(arguments: ["Top 1st", "Bottom 1st", "Top 9th"])
    func baseballHasNoClockInAnyPeriod(period: String) throws {
        #expect(try Self.clock(.baseball, period: period) == nil)
    }

    @Test func genericSportsTakeOnlyTheFeedsReading() throws {
        #expect(try Self.clock(.generic, period: "2H")?.seconds == nil)
        #expect(try Self.clock(.generic, period: "2H", clock: "12:30")?.seconds == 750)
    }
}
