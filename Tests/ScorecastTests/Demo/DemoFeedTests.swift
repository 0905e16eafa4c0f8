@testable import DemoMatch
import Foundation
import Testing


@Suite("Demo match feed")
struct DemoFeedTests {
    let start = Date(timeIntervalSince1970: 1_764_446_400)

    @Test func seqStrictlyIncreasesAndTimesNeverGoBack() throws {
        let timed = try DemoFeed.events(startingAt: start, speedup: 60)
        #expect((60...120).contains(timed.count))
        #expect(timed.map(\.event.seq) == Array(1...timed.count))
        #expect(Set(timed.map(\.event.id)).count == timed.count)
        #expect(timed.allSatisfy { $0.event.game == DemoFeed.gameID })
        #expect(zip(timed, timed.dropFirst()).allSatisfy { $0.offset <= $1.offset && $0.event.occurredAt <= $1.event.occurredAt })
        #expect(timed.first?.offset == .zero)
        #expect(timed.first?.event.kind == .scheduled)
        #expect(timed.last?.event.kind == .final)
        #expect(timed.filter { $0.event.kind == .final }.count == 1)
    }

    @Test func everyKindAppearsAndTheMatchLastsOverNinetyMinutes() throws {
        let events = try DemoFeed.events(startingAt: start, speedup: 1).map(\.event)
        #expect(Set(events.map(\.kind)) == Set(DemoEventKind.allCases))
        let cards = events.filter { $0.kind == .card }.map(\.card)
        #expect(cards.filter { $0 == "yellow" }.count == 6 && cards.filter { $0 == "red" }.count == 1 && !cards.contains(nil))
        #expect(events.filter { $0.penalty == true }.map(\.kind) == [.score])
        #expect(events.compactMap(\.scoreboard.addedTime) == [2, 5])
        #expect(events.first { $0.player == "Marcus Bell" }?.shortName == "Bell")
        // Real time: from announcement to the final whistle is over 90 minutes of play plus half-time.
        let span = try #require(events.last?.occurredAt.timeIntervalSince(start))
        #expect(span > (90 + 15) * 60)
        #expect(events.last?.scoreboard.clock.hasPrefix("90+") == true)
        // Periods only move forward: 1H → HT → 2H → FT.
        let order: [DemoPeriod] = [.firstHalf, .halfTime, .secondHalf, .fullTime]
        let ranks = events.compactMap { order.firstIndex(of: $0.scoreboard.period) }
        #expect(zip(ranks, ranks.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(Set(ranks) == Set(0..<4))
    }

    @Test func scoresFollowTheGoals() throws {
        var home = 0
        var away = 0
        let events = try DemoFeed.events(startingAt: start, speedup: 120).map(\.event)
        for event in events {
            if event.kind == .score {
                let team = try #require(event.team, "goal \(event.id) names no team")
                if team == .home { home += 1 } else { away += 1 }
                // The hand-written description states the new score: it must agree.
                #expect(event.description.contains("\(DemoFeed.homeTeam) \(home)-\(away) \(DemoFeed.awayTeam)"), "\(event.id): \(event.description)")
                #expect(event.player != nil)
            }
            #expect(event.scoreboard.home == home && event.scoreboard.away == away, "\(event.id)")
        }
        #expect(home + away == 5)
        let final = try #require(events.last)
        #expect(final.description.contains("\(home)-\(away)"))
        #expect(final.scoreboard.extra["result"] == .string(home > away ? "home" : home < away ? "away" : "draw"))
    }

    @Test func speedupScalesOffsets() throws {
        let realTime = try DemoFeed.events(startingAt: start, speedup: 1)
        let fast = try DemoFeed.events(startingAt: start, speedup: 60)
        #expect(realTime.last?.offset == DemoFeed.matchLength)
        for (slow, quick) in zip(realTime, fast) {
            let ratio = slow.offset / quick.offset.isZeroOrSelf
            #expect(slow.offset == .zero || abs(ratio - 60) < 1e-6)
            #expect(quick.event.occurredAt == Date(timeIntervalSince1970: (start.timeIntervalSince1970 + quick.offset.seconds).rounded(.down)))
        }
        #expect(throws: DemoFeedError.invalidSpeedup(0)) { try DemoFeed.events(startingAt: start, speedup: 0) }
        #expect(throws: DemoFeedError.self) { try DemoFeed.events(startingAt: start, speedup: .nan) }
        #expect(throws: DemoFeedError.invalidSpeedup(-2)) { try DemoFeed.events(startingAt: start, speedup: -2) }
    }

    @Test func eachEventEncodesToTheFeedShape() throws {
        let topKeys: Set<String> = ["id", "game", "seq", "occurredAt", "kind", "scoreboard", "description"]
        let kinds = Set(DemoEventKind.allCases.map(\.rawValue))
        let clock = try Regex(#"^\d{1,2}(\+\d{1,2})?'$"#)
        for timed in try DemoFeed.events(startingAt: start, speedup: 60) {
            let data = try timed.event.jsonData()
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let keys = Set(object.keys)
            #expect(keys.isSuperset(of: topKeys) && keys.isSubset(of: topKeys.union(["team", "player", "shortName", "card", "penalty"])), "\(keys)")
            #expect((object["id"] as? String)?.isEmpty == false)
            #expect(object["game"] as? String == DemoFeed.gameID)
            #expect(object["seq"] as? Int == timed.event.seq)
            let occurredAt = try #require(object["occurredAt"] as? String)
            #expect(try Date(occurredAt, strategy: .iso8601) == timed.event.occurredAt, "\(occurredAt)")
            #expect(occurredAt.hasSuffix("Z"))
            #expect(kinds.contains(object["kind"] as? String ?? ""))
            #expect((object["description"] as? String)?.count ?? 0 > 10)
            if let team = object["team"] { #expect(["home", "away"].contains(team as? String)) }
            if let player = object["player"] { #expect((player as? String)?.isEmpty == false) }
            let board = try #require(object["scoreboard"] as? [String: Any])
            #expect(Set(board.keys).subtracting(["addedTime"]) == ["home", "away", "period", "clock", "extra"])
            #expect(board["home"] is Int && board["away"] is Int)
            #expect(["1H", "HT", "2H", "FT"].contains(board["period"] as? String))
            #expect((board["clock"] as? String)?.wholeMatch(of: clock) != nil, "\(board["clock"] ?? "")")
            let extra = try #require(board["extra"] as? [String: Any])
            #expect(extra.values.allSatisfy { $0 is String || $0 is NSNumber }, "\(extra)")
            #expect(try JSONDecoder().decode(DemoEvent.self, from: data) == timed.event)
        }
    }
}

extension Duration {
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    fileprivate var isZeroOrSelf: Duration { self == .zero ? .seconds(1) : self }
}
