import APNsCore
import Foundation
import ScorecastCore
import Testing
@testable import DeliveryEngine

/// Coalescing on the token path, without Postgres.
@Suite struct ActivityUpdateMergeTests {
    static let now = OutboxMergeTests.now

    static func pending(_ seq: Int, _ kind: EventKind, home: Int, dueIn seconds: Double = 0) throws -> ActivityUpdate {
        ActivityUpdate(try OutboxMergeTests.update(seq, kind, home: home), final: kind == .final, dueAt: now.addingTimeInterval(seconds))
    }

    @Test func withoutAPendingUpdateTheNewOneIsWrittenAsItIs() throws {
        let goal = try Self.pending(1, .score, home: 1)
        #expect(ActivityUpdateMerge.merge(pending: nil, inFlight: false, update: goal) == goal)
    }

    @Test func aPendingAlertNotYetOnItsWayRidesOnANewerStateThatHasNone() throws {
        let goal = try Self.pending(1, .score, home: 1)
        let tick = try Self.pending(2, .clock, home: 1, dueIn: 10)
        let alert = try #require(goal.payload.alert)
        #expect(tick.payload.alert == nil && tick.priority == .opportunistic)

        let merged = ActivityUpdateMerge.merge(pending: goal, inFlight: false, update: tick)
        var expected = tick.payload
        expected.alert = alert
        #expect(merged.payload == expected, "the newer state, the goal's alert")
        #expect(merged.payload.contentState == tick.payload.contentState)
        #expect(merged.payload.timestamp == tick.payload.timestamp)
        #expect(merged.priority == .immediate)
        #expect(merged.alerting)
        #expect(!merged.final)
        #expect(merged.dueAt == Self.now, "the earlier due time")
    }

    @Test func anAlertInFlightIsNotCopied() throws {
        let goal = try Self.pending(1, .score, home: 1)
        let tick = try Self.pending(2, .clock, home: 1, dueIn: 10)
        let merged = ActivityUpdateMerge.merge(pending: goal, inFlight: true, update: tick)
        #expect(merged.payload == tick.payload, "the send under way carries the alert: a copy would announce it twice")
        #expect(merged.priority == .immediate, "priority never weakens")
        #expect(merged.alerting)
        #expect(merged.dueAt == Self.now)
    }

    @Test func aNewerAlertIsSentWithItsOwnAnnouncement() throws {
        let first = try Self.pending(1, .score, home: 1)
        let second = try Self.pending(2, .score, home: 2)
        let merged = ActivityUpdateMerge.merge(pending: first, inFlight: false, update: second)
        #expect(merged.payload == second.payload)
        #expect(merged.payload.alert != first.payload.alert)
        #expect(merged.priority == .immediate)
    }

    @Test func priorityAndTheFinalWhistleNeverWeaken() throws {
        let end = try Self.pending(1, .final, home: 1)
        #expect(end.final && end.payload.event == .end)
        let tick = try Self.pending(2, .clock, home: 1, dueIn: -5)
        let merged = ActivityUpdateMerge.merge(pending: end, inFlight: true, update: tick)
        #expect(merged.final, "the final whistle keeps its claim on the budget's reserve")
        #expect(merged.priority == .immediate)
        #expect(merged.dueAt == Self.now.addingTimeInterval(-5), "the earlier due time: the newer one's")

        let routine = try Self.pending(3, .clock, home: 1)
        let both = ActivityUpdateMerge.merge(pending: routine, inFlight: false, update: try Self.pending(4, .clock, home: 1, dueIn: 3))
        #expect(both.priority == .opportunistic && !both.alerting && !both.final, "routine over routine stays routine")
    }

    @Test func aPendingUpdateMarkedAlertingWhoseAlertAlreadyLeftTakesTheNewerStateAsItIs() throws {
        // The in-flight merge above: alerting, priority 10, no alert left in its payload.
        let goal = try Self.pending(1, .score, home: 1)
        let afterFlight = ActivityUpdateMerge.merge(pending: goal, inFlight: true, update: try Self.pending(2, .clock, home: 1))
        #expect(afterFlight.alerting && afterFlight.payload.alert == nil)
        let tick = try Self.pending(3, .clock, home: 1)
        let merged = ActivityUpdateMerge.merge(pending: afterFlight, inFlight: false, update: tick)
        #expect(merged.payload == tick.payload)
        #expect(merged.priority == .immediate && merged.alerting)
    }
}
