import APNsCore
import DeliveryEngine
import Foundation
import JSON
import Registry
import ScorecastCore
import Testing

/// One content-state encoding per step and shape within a plan: channels of apps
/// whose date encoding and mapping agree share it; everything else in their payloads stays theirs.
@Suite struct ContentStateMemoTests {
    static let game = GameInfo(sport: "soccer", homeName: "Arsenal", awayName: "Chelsea")

    static func plan(_ events: [FeedEvent], targets: [ChannelTarget]) throws -> (writes: [OutboxWrite], encodings: Int) {
        let fold = GameFold(events: events, isDuplicate: events.map { _ in false }, games: ["g1": .initial], sports: ["g1": "soccer"])
        var ids: [Int: Int64] = [:]
        for index in events.indices { ids[index] = Int64(100 + index) }
        var memo = ContentStateMemo()
        let writes = try OutboxPlanner(shaping: ShapingPolicy(routineInterval: 10)).plan(
            fold: fold, games: ["g1": game], targets: targets, eventIDs: ids, now: IngestPlanningTests.start,
            contentStates: &memo)
        return (writes, memo.encodings)
    }

    static let goal = IngestPlanningTests.event("g", seq: 1, at: 0.5, kind: .score, home: 1, clock: "12'")

    @Test func appsWithTheSameShapeShareOneEncodingAndKeepTheirOwnPayloads() throws {
        var silent = RenderSettings()
        silent.alertSound = nil
        silent.dismissalDelay = 60
        let targets = [
            IngestPlanningTests.target(1), IngestPlanningTests.target(2, lastTimestamp: 1_764_450_100),
            IngestPlanningTests.target(3, settings: silent), IngestPlanningTests.target(4),
        ]
        let (writes, encodings) = try Self.plan([Self.goal], targets: targets)
        #expect(encodings == 1)
        #expect(writes.map(\.channelID) == [1, 2, 3, 4])
        let contentStates = try writes.map { try $0.entry.payload.contentState.encoded() }
        #expect(Set(contentStates).count == 1)
        // Each payload is still its channel's own: its timestamp floor, its app's alert sound.
        #expect(writes.map(\.entry.payload.timestamp) == [1_764_450_000, 1_764_450_100, 1_764_450_000, 1_764_450_000])
        #expect(writes.map { $0.entry.alerts.first?.alert.sound } == ["default", "default", nil, "default"])
        // And exactly what each renderer gives on its own, content-state included.
        let step = try #require(GameFold(events: [Self.goal], isDuplicate: [false], games: ["g1": .initial], sports: ["g1": "soccer"]).steps["g1"]?.first)
        for (write, target) in zip(writes, targets) {
            var alone = try target.renderer.render(
                state: step.state, game: Self.game, event: Self.goal, channelLastTimestamp: target.lastTimestamp,
                receivedAt: IngestPlanningTests.start)
            alone.eventID = "100"
            #expect(write.entry == OutboxEntry(update: alone, dueAt: write.entry.dueAt, now: IngestPlanningTests.start), "channel \(write.channelID)")
        }
    }

    @Test func eachStepIsEncodedOnce() throws {
        let tick = IngestPlanningTests.event("t", seq: 2, at: 60, clock: "40'")
        let (writes, encodings) = try Self.plan(
            [Self.goal, tick], targets: [IngestPlanningTests.target(1), IngestPlanningTests.target(2)])
        #expect(encodings == 2)
        #expect(writes.map { $0.entry.payload.contentState["clock"]?["label"] } == ["40'", "40'"])
    }

    @Test func differentDateEncodingsAndMappingsStillDiffer() throws {
        var unix = RenderSettings()
        unix.dateEncoding = .unixSeconds
        var renamed = RenderSettings()
        renamed.mapping = try ContentStateMapping(renames: ["homeScore": "home"])
        let (writes, encodings) = try Self.plan([Self.goal], targets: [
            IngestPlanningTests.target(1), IngestPlanningTests.target(2, settings: unix),
            IngestPlanningTests.target(3, settings: renamed), IngestPlanningTests.target(4, settings: unix),
        ])
        #expect(encodings == 3)
        let states = writes.map(\.entry.payload.contentState)
        #expect(states[0]["updatedAt"] == .number(IngestPlanningTests.start.addingTimeInterval(0.5).timeIntervalSinceReferenceDate))
        #expect(states[1]["updatedAt"] == .integer(1_764_450_000))
        #expect(states[3] == states[1])
        #expect(states[2]["home"] == 1)
        #expect(states[2]["homeScore"] == nil)
        #expect(states[0]["homeScore"] == 1)
    }
}
