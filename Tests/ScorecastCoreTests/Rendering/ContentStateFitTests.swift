import APNsCore
import Foundation
import JSON
import ScorecastActivity
import TestSupport
import Testing
@testable import ScorecastCore

/// Fitting a content-state into its budget instead of refusing a valid event for size.
@Suite struct ContentStateFitTests {
    static let kickOff = Date(timeIntervalSince1970: 1_764_450_000)
    /// Names and texts as long as the feed schema allows, in characters of 4 UTF-8 bytes.
    static let longName = String(repeating: "𠮷", count: FeedEventLimits.playerMaximumLength)
    static let longText = String(repeating: "𠮷", count: FeedEventLimits.descriptionMaximumLength)

    @Test(arguments: [
        ("Bukayo Saka", 16, "Bukayo Saka"), ("Lionel Andrés Messi Cuccittini", 16, "Lionel Andrés M…"),
        // A family emoji is one character of seven scalars; cutting never splits it.
        ("Ab👨‍👩‍👧‍👦cdef", 4, "Ab👨‍👩‍👧‍👦…"), ("e\u{301}e\u{301}e\u{301}", 2, "e\u{301}…"),
    ])
    func cutsAtAGraphemeBoundaryWithAnEllipsis(text: String, length: Int, cut: String) {
        #expect(ContentStateFit.cut(text, to: length) == cut)
        #expect(ContentStateFit.cut(text, to: length).count <= length)
    }

    @Test func aStateThatFitsIsLeftAlone() throws {
        let content = ContentState(status: .live, homeScore: 1, awayScore: 0, extra: ["corners": "5"], updatedAt: Self.kickOff)
        let fitted = try ContentStateFit.fit(content) { _ in 100 }
        #expect(fitted.content == content)
        #expect(fitted.steps.isEmpty)
    }

    @Test func degradesInTheStatedOrder() throws {
        let card = { (team: ContentState.Side) in ContentState.Card(team: team, player: Self.longName, minute: 10, colour: .yellow) }
        let scorer = { (team: ContentState.Side) in ContentState.Scorer(team: team, player: Self.longName, minute: 20) }
        let content = ContentState(
            status: .live, homeScore: 3, awayScore: 3,
            clock: ContentState.Clock(label: "67'", running: true, direction: .up, seconds: 3960, periodStartedAt: Self.kickOff),
            lastEvent: ContentState.Play(kind: .score, text: Self.longText, team: .home, player: Self.longName, occurredAt: Self.kickOff),
            scorers: [scorer(.home), scorer(.away), scorer(.home), scorer(.away), scorer(.home), scorer(.away)],
            cards: [card(.away), card(.home), card(.away), card(.away)],
            extra: ["possession": Self.longText], updatedAt: Self.kickOff)
        func size(_ state: ContentState) throws(LiveActivityPayloadError) -> Int {
            (try? ContentStateRenderer.encode(state, dateEncoding: .referenceDate).encoded().count) ?? .max
        }
        // A budget only the barest state meets: every step, in order.
        let bare = try ContentStateFit.fit(content, limit: 1, size: size)
        #expect(bare.steps == [.foldedCards, .foldedScorers, .cutTexts, .droppedExtra, .droppedPlayText, .droppedClockLabel, .foldedCards, .foldedScorers])
        #expect(bare.content.scorers.isEmpty && bare.content.cards.isEmpty)
        #expect(bare.content.earlierScorers == .init(home: 3, away: 3))
        #expect(bare.content.earlierCards == .init(home: 1, away: 3))
        // A budget met after the oldest cards are folded: the newest two stay listed, the rest counted.
        let full = try size(content)
        let oneFold = try ContentStateFit.fit(content, limit: full - 1, size: size)
        #expect(oneFold.steps == [.foldedCards])
        #expect(oneFold.content.cards == Array(content.cards.suffix(3)))
        #expect(oneFold.content.earlierCards == .init(home: 0, away: 1))
        #expect(oneFold.content.scorers == content.scorers)
    }

    /// The fan's worst case: a 12–10 match with 30 cards, every name and description as long as
    /// the schema allows. Every event renders (none would be refused) within the budget with
    /// its alert beside it, every goal is announced, and the lock screen still counts every
    /// goal and card.
    @Test func aMaximalHighScoringMatchIsNeverRefusedAndEveryGoalIsAnnounced() throws {
        let game = GameInfo(sport: "football", homeName: Self.longName, awayName: Self.longName)
        let renderer = LiveActivityRenderer()
        var state = GameState.initial
        var kinds: [EventKind] = [.start] + Array(repeating: EventKind.card, count: 30) + Array(repeating: .score, count: 22)
        var generator = SeededGenerator(seed: 7)
        kinds[1...].shuffle(using: &generator)
        kinds.append(.final)
        var score = (home: 0, away: 0)
        var goalsOfSide = (home: 0, away: 0)
        var announced = 0
        var lastContent = JSONValue.null
        for (index, kind) in kinds.enumerated() {
            let seconds = Double(index) * 100
            var team: TeamSide?
            var board = ScoreboardUpdate(period: index == 0 ? .set("1H") : .keep, clock: .set("\(Int(seconds / 60) + 1)'"))
            if kind == .score {
                let home = goalsOfSide.home < 12 && (goalsOfSide.away >= 10 || index.isMultiple(of: 2))
                team = home ? .home : .away
                if home { goalsOfSide.home += 1; score.home += 1 } else { goalsOfSide.away += 1; score.away += 1 }
                board.home = score.home
                board.away = score.away
            } else if kind == .card {
                team = index.isMultiple(of: 3) ? .home : .away
            }
            board.extra = ["note\(index % 8)": .string(String(repeating: "𠮷", count: FeedEventLimits.extraStringMaximumLength))]
            let event = FeedEvent(
                id: "e\(index)", game: "g", seq: index + 1, occurredAt: Self.kickOff.addingTimeInterval(seconds), kind: kind,
                scoreboard: board, description: Self.longText, team: team, player: kind == .card || kind == .score ? Self.longName : nil,
                card: kind == .card ? (index.isMultiple(of: 5) ? .red : .yellow) : nil)
            state = try #require(state.applying(event, profile: .football).state)
            let update = try renderer.render(state: state, game: game, event: event, channelLastTimestamp: nil, receivedAt: event.occurredAt)
            #expect(try update.payload.contentState.encoded().count <= ContentStateFit.budget, "event \(index)")
            #expect(update.body.count <= 5_120)
            if kind == .score {
                #expect(update.payload.alert != nil && update.priority == .immediate, "goal \(index) is announced")
                announced += update.payload.alert == nil ? 0 : 1
            }
            lastContent = update.payload.contentState
        }
        #expect(goalsOfSide.home == 12 && goalsOfSide.away == 10)
        #expect(announced == 22)
        let content = try JSONDecoder().decode(ContentState.self, from: Data(try lastContent.encoded()))
        #expect(content.homeScore == 12 && content.awayScore == 10 && content.status == .final)
        func listed<T>(_ items: [T], _ side: ContentState.Side, _ team: (T) -> ContentState.Side) -> Int { items.filter { team($0) == side }.count }
        #expect(listed(content.scorers, .home, \.team) + (content.earlierScorers?.home ?? 0) == 12)
        #expect(listed(content.scorers, .away, \.team) + (content.earlierScorers?.away ?? 0) == 10)
        #expect(content.cards.count + (content.earlierCards?.home ?? 0) + (content.earlierCards?.away ?? 0) == 30)
        #expect(!content.scorers.isEmpty, "the newest goals stay listed")
    }
}
