@testable import DemoMatch
import Foundation
import JSON
@testable import Registry
import ScorecastCore
import Testing


/// How many updates the bundled match costs a channel once the phone runs the clock: the demo
/// feed at real-time pace (speed 1), folded as ingest folds it, counting the events that write
/// an outbox row (alerting, or changing what the Live Activity shows — the filter of
/// `OutboxPlanner`). Before this model every accepted event wrote one.
@Suite("Demo match: updates per channel")
struct DemoPushCountTests {
    let start = Date(timeIntervalSince1970: 1_764_446_400)

    func fold(speedup: Double, notice: NoticePolicy = NoticePolicy()) throws -> (events: [FeedEvent], written: [FeedEvent]) {
        let events = try DemoFeed.events(startingAt: start, speedup: speedup).map { timed in
            try FeedEventValidator().event(from: JSONParser().parse(Array(try timed.event.jsonData())), now: timed.event.occurredAt)
        }
        let fold = GameFold(events: events, isDuplicate: events.map { _ in false }, games: [:], sports: [DemoFeed.gameID: DemoFeed.sport],
            notice: notice)
        let policy = PriorityPolicy()
        let steps = try #require(fold.steps[DemoFeed.gameID])
        #expect(steps.count == events.count)
        return (events, steps.filter { $0.changesWhatIsShown || policy.isAlerting($0.event) }.map(\.event))
    }

    @Test func everyGoalCardAndPeriodChangeIsSentAndNoClockTickIs() throws {
        let (events, written) = try fold(speedup: 1)
        let mustSend = events.filter { [.start, .score, .card, .period, .final].contains($0.kind) }
        #expect(Set(mustSend.map(\.id)).isSubset(of: Set(written.map(\.id))))
        // Of the 32 clock events the two added-time announcements change what is shown, and one
        // more carries statistics that waited for their cadence; the other ticks are run by the phone
        // (each falls within the 10-minute refresh).
        let clockEvents = written.filter { $0.kind == .clock }
        #expect(clockEvents.map(\.scoreboard.addedTime) == [.set(2), .keep, .set(5)])
        #expect(events.filter { $0.kind == .clock }.count == 32)
        #expect(events.count == 72)
        #expect(written.count == 40, "\(written.map(\.kind.rawValue))")
    }

    @Test func statisticsAtTheirCadenceSaveTwoUpdatesOfTheDemoMatch() throws {
        let (_, everyChange) = try fold(speedup: 1, notice: NoticePolicy(statisticsInterval: 0))
        let (_, atCadence) = try fold(speedup: 1)
        #expect(everyChange.count == 42)
        #expect(everyChange.filter { $0.kind == .stats }.count == 9)
        #expect(atCadence.filter { $0.kind == .stats }.count == 6)
        #expect(atCadence.count == 40)
    }
}
