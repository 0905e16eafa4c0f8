import APNsCore
import Delivery
import DeliveryEngine
import Foundation
import PhoneModel
import ScorecastCore
import Testing

/// The `dismissal-date` of an `end` is counted from when it is sent, so a final held back by an
/// APNs outage still stays on the Lock Screen for the app's whole delay once it arrives.
@Suite struct DismissalStampTests {
    /// When the final reached the server and was rendered.
    static let ingestedAt = Date(timeIntervalSince1970: 1_764_460_800)
    static let delay = 600

    /// The outbox row of a channel whose game just ended, as ingest renders it.
    static func claim() throws -> ClaimedDelivery {
        var state = GameState.initial
        state.status = .final
        state.homeScore = 3
        state.awayScore = 2
        state.period = "FT"
        state.updatedAt = ingestedAt
        let renderer = LiveActivityRenderer(settings: RenderSettings(dismissalDelay: Double(delay)))
        let end = try renderer.renderSnapshot(
            state: state, game: GameInfo(sport: "football", homeName: "Arsenal", awayName: "Chelsea"), now: ingestedAt,
            channelLastTimestamp: nil)
        #expect(end.payload.event == .end)
        return ClaimedDelivery(
            channelID: 7, version: 3, payload: end.body, payloadTimestamp: Int64(end.payload.timestamp), requestedPriority: .immediate,
            alerting: false, eventIDs: [11], firstIngestedAt: ingestedAt, coalesced: 0, attempts: 0, leaseOwner: "w",
            claimedAt: ingestedAt, apnsChannelID: "abc=", storagePolicy: .noMessageStored, lastTimestamp: 0,
            app: DeliveryApp(
                id: 2, bundleID: "com.example.app", environment: .sandbox, teamID: "TEAM000001", keyID: "KEY0000001",
                keyPath: "/k.p8", frequentUpdates: false, budgetPerHour: nil, dismissalDelaySeconds: delay),
            budget: ChannelBudget())
    }

    @Test(arguments: [0.0, 59.0, 3_600.0, 4 * 3_600.0])
    func anEndSentLateStaysTheWholeDelayOnThePhone(lateBy seconds: Double) throws {
        let sentAt = Self.ingestedAt.addingTimeInterval(seconds)
        let plan = PlannedSend(claim: try Self.claim(), now: sentAt, settings: WorkerSettings())
        var phone = Phone()
        #expect(phone.receive(plan.body, at: sentAt) == .applied(timestamp: 1_764_460_800))
        #expect(phone.ending?.dismissedAt == sentAt.addingTimeInterval(Double(Self.delay)))
        #expect(phone.isShowing(at: sentAt.addingTimeInterval(Double(Self.delay - 1))), "the fan still sees the final score")
        #expect(!phone.isShowing(at: sentAt.addingTimeInterval(Double(Self.delay))))
    }
}
