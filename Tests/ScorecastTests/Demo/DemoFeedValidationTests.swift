@testable import DemoMatch
import Foundation
import ScorecastCore
import Testing


/// The demo match must pass the ingest API's own validator (ScorecastCore's
/// `FeedEventValidator`, which implements `Schema/event.schema.json`), one event at a time and
/// as one batch, and mean the same thing once validated.
@Suite("Demo match against the feed validator")
struct DemoFeedValidationTests {
    let start = Date(timeIntervalSince1970: 1_764_446_400)

    @Test func everyEventPassesTheValidatorAndKeepsItsMeaning() throws {
        let validator = FeedEventValidator()
        for timed in try DemoFeed.events(startingAt: start, speedup: 60) {
            let body = try timed.event.jsonData()
            let events: [FeedEvent]
            do {
                events = try validator.events(fromBody: Array(body), now: timed.event.occurredAt)
            } catch {
                Issue.record("\(timed.event.id) refused: \(error)")
                continue
            }
            let event = try #require(events.first)
            #expect(events.count == 1)
            #expect(event.id == timed.event.id && event.game == DemoFeed.gameID && event.seq == timed.event.seq)
            #expect(event.kind.rawValue == timed.event.kind.rawValue)
            #expect(event.occurredAt == timed.event.occurredAt)
            #expect(event.scoreboard.home == timed.event.scoreboard.home && event.scoreboard.away == timed.event.scoreboard.away)
            #expect(event.team?.rawValue == timed.event.team?.rawValue)
            #expect(event.player == timed.event.player)
            #expect(event.description == timed.event.description)
            #expect(event.scoreboard.extra.count == timed.event.scoreboard.extra.count)
        }
    }

    @Test func theWholeMatchPassesAsOneBatch() throws {
        let timed = try DemoFeed.events(startingAt: start, speedup: 600)
        let objects = try timed.map { try JSONSerialization.jsonObject(with: $0.event.jsonData()) }
        let body = try JSONSerialization.data(withJSONObject: ["events": objects])
        let lastTime = try #require(timed.last?.event.occurredAt)
        let events = try FeedEventValidator().events(fromBody: Array(body), now: lastTime)
        #expect(events.map(\.seq) == timed.map(\.event.seq))
    }
}
