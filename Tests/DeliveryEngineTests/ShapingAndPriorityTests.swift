import APNsCore
import Foundation
import ScorecastCore
import Testing
@testable import DeliveryEngine

@Suite struct ShapingAndPriorityTests {
    static let now = Date(timeIntervalSince1970: 1_000_000)

    @Test(arguments: [
        // (alerting, seconds since last send or nil, expected due offset from now)
        (true, nil as Double?, 0.0),
        (true, 1, 0),
        (false, nil, 0),
        (false, 1, 9),
        (false, 9.5, 0.5),
        (false, 10, 0),
        (false, 3600, 0),
    ])
    func routineUpdatesAreSpacedAlertingOnesAreNot(alerting: Bool, sinceLast: Double?, expected: Double) {
        let shaping = ShapingPolicy(routineInterval: 10)
        let last = sinceLast.map { Self.now.addingTimeInterval(-$0) }
        #expect(shaping.dueAt(isAlerting: alerting, now: Self.now, lastSentAt: last) == Self.now.addingTimeInterval(expected))
    }

    @Test(arguments: EventKind.allCases)
    func kindsFollowTheDefaultPolicy(kind: EventKind) {
        let event = FeedEvent(id: "e", game: "g", seq: 1, occurredAt: Self.now, kind: kind)
        let alerting: Set<EventKind> = [.start, .score, .penalty, .suspended, .final, .cancelled]
        let policy = PriorityPolicy()
        #expect(policy.isAlerting(event) == alerting.contains(kind))
        #expect(policy.priority(for: event) == (alerting.contains(kind) ? .immediate : .opportunistic))
    }

    @Test(arguments: [(EventKind.card, true, BroadcastPriority.immediate), (.score, false, .opportunistic), (.clock, true, .immediate)])
    func theEventsOwnFlagWins(kind: EventKind, alert: Bool, expected: BroadcastPriority) {
        let event = FeedEvent(id: "e", game: "g", seq: 1, occurredAt: Self.now, kind: kind, alert: alert)
        #expect(PriorityPolicy().priority(for: event) == expected)
    }

    @Test func appsMayChooseTheirAlertingKinds() {
        let policy = PriorityPolicy(alertingKinds: [.card])
        #expect(policy.priority(for: FeedEvent(id: "e", game: "g", seq: 1, occurredAt: Self.now, kind: .card)) == .immediate)
        #expect(policy.priority(for: FeedEvent(id: "e", game: "g", seq: 1, occurredAt: Self.now, kind: .score)) == .opportunistic)
    }
}
