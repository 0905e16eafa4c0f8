import Foundation
import ScorecastActivity
import Testing

@Suite struct ClockTests {
    static let kickOff = Date(timeIntervalSinceReferenceDate: 786_145_500)

    @Test func aRunningCountUpClockAdvancesFromItsAnchor() throws {
        let clock = ContentState.Clock(running: true, direction: .up, seconds: 2700, periodStartedAt: Self.kickOff)
        #expect(clock.reading(at: Self.kickOff.addingTimeInterval(754)) == 3454)
        #expect(clock.reading(at: Self.kickOff.addingTimeInterval(-10)) == 2700)
        let range = try #require(clock.timerInterval)
        #expect(range.lowerBound == Self.kickOff.addingTimeInterval(-2700))
        #expect(!clock.countsDown)
    }

    @Test func aRunningCountDownClockStopsAtZero() throws {
        let clock = ContentState.Clock(running: true, direction: .down, seconds: 254, periodStartedAt: Self.kickOff, periodLength: 720)
        #expect(clock.reading(at: Self.kickOff.addingTimeInterval(54)) == 200)
        #expect(clock.reading(at: Self.kickOff.addingTimeInterval(400)) == 0)
        let range = try #require(clock.timerInterval)
        #expect(range.upperBound == Self.kickOff.addingTimeInterval(254))
        #expect(range.lowerBound == Self.kickOff.addingTimeInterval(-466))
        #expect(clock.countsDown)
    }

    @Test func aStoppedClockIsFrozen() {
        let clock = ContentState.Clock(label: "45+2'", running: false, direction: .up, seconds: 2820, stoppedAt: Self.kickOff)
        #expect(clock.reading(at: Self.kickOff.addingTimeInterval(900)) == 2820)
        #expect(clock.timerInterval == nil)
        #expect(ContentState.Clock(running: true, direction: .up).reading(at: Self.kickOff) == nil)
    }

    @Test func minutesReadAsFansWriteThem() {
        #expect(ContentState.minuteText(67, added: nil) == "67'")
        #expect(ContentState.minuteText(45, added: 2) == "45+2'")
        #expect(ContentState.minuteText(90, added: 0) == "90'")
    }
}
