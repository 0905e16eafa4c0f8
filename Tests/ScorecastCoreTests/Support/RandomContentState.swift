import Foundation
import ScorecastActivity
import TestSupport

/// Varied content-states for encoding tests: every optional present or absent, lists empty or
/// long, Unicode and escapes in text, whole and fractional numbers, dates around both epochs.
enum RandomContentState {
    static let texts = [
        "1H", "", "Mi-temps", "第2節", "🏟 2nd ⚽️", "quote\" back\\slash /slash", "nl\n tab\t bell\u{07} nul\u{00}",
        "e\u{301}", "Ω≈ç√", String(repeating: "x", count: 200),
    ]
    static let numbers: [Double] = [0, -0.0, 1, 45, 2700, 2712.5, 0.1, 1e-7, 254.333, 9_007_199_254_740_992, 1e16, 7200.000_1, -3]

    static func make(using random: inout SeededGenerator) -> ContentState {
        func maybe<T>(_ value: @autoclosure () -> T) -> T? { Bool.random(using: &random) ? value() : nil }
        func text() -> String { texts.randomElement(using: &random)! }
        func number() -> Double { numbers.randomElement(using: &random)! }
        func date() -> Date {
            // Fractions finer than the millisecond, whole seconds, and times before 1970 and 2001.
            let seconds = Double(Int.random(in: -1_000_000_000...2_000_000_000, using: &random))
            let fraction = [0, 0.5, 0.25, 0.123, 0.123_456_7, 0.999_9].randomElement(using: &random)!
            return Date(timeIntervalSince1970: seconds + fraction)
        }
        func side() -> ContentState.Side { ContentState.Side.allCases.randomElement(using: &random)! }
        func minute() -> Int? { maybe(Int.random(in: 0...130, using: &random)) }

        var content = ContentState(
            status: ContentState.Status.allCases.randomElement(using: &random)!,
            homeScore: Int.random(in: 0...150, using: &random), awayScore: Int.random(in: 0...150, using: &random),
            period: maybe(text()), updatedAt: date())
        content.clock = maybe(
            ContentState.Clock(
                label: maybe(text()), running: Bool.random(using: &random),
                direction: ContentState.Clock.Direction.allCases.randomElement(using: &random)!,
                seconds: maybe(number()), periodStartedAt: maybe(date()), stoppedAt: maybe(date()),
                periodLength: maybe(number()), addedMinutes: minute()))
        content.lastEvent = maybe(
            ContentState.Play(
                kind: ContentState.Play.Kind.allCases.randomElement(using: &random)!, text: maybe(text()), team: maybe(side()),
                player: maybe(text()), minute: minute(), addedMinute: minute(),
                card: maybe(ContentState.CardColour.allCases.randomElement(using: &random)!),
                ownGoal: maybe(Bool.random(using: &random)), penalty: maybe(Bool.random(using: &random)), occurredAt: date()))
        content.scorers = (0..<Int.random(in: 0...8, using: &random)).map { _ in
            ContentState.Scorer(
                team: side(), player: maybe(text()), minute: minute(), addedMinute: minute(),
                ownGoal: Bool.random(using: &random), penalty: Bool.random(using: &random))
        }
        content.cards = (0..<Int.random(in: 0...6, using: &random)).map { _ in
            ContentState.Card(
                team: side(), player: maybe(text()), minute: minute(), addedMinute: minute(),
                colour: ContentState.CardColour.allCases.randomElement(using: &random)!)
        }
        content.redCards = maybe(ContentState.TeamTally(home: Int.random(in: 0...3, using: &random), away: 0))
        content.shootout = maybe(ContentState.TeamTally(home: 5, away: Int.random(in: 0...9, using: &random)))
        for _ in 0..<Int.random(in: 0...4, using: &random) { content.extra[text()] = text() }
        return content
    }

    /// Every optional present, every list filled.
    static let full: ContentState = {
        let at = Date(timeIntervalSince1970: 1_764_452_700.25)
        var content = ContentState(
            status: .live, homeScore: 2, awayScore: 1, period: "2H", redCards: .init(home: 0, away: 1),
            shootout: .init(home: 3, away: 2), extra: ["corners": "5", "xg": "1.25"], updatedAt: at)
        content.clock = ContentState.Clock(
            label: "67'", running: true, direction: .up, seconds: 2700, periodStartedAt: at.addingTimeInterval(-1320),
            stoppedAt: at.addingTimeInterval(-0.5), periodLength: 2700, addedMinutes: 3)
        content.lastEvent = ContentState.Play(
            kind: .card, text: "Kane booked", team: .away, player: "Kane", minute: 52, addedMinute: 1, card: .red,
            ownGoal: false, penalty: true, occurredAt: at)
        content.scorers = [.init(team: .home, player: "Saka", minute: 12, addedMinute: 1, ownGoal: true, penalty: true)]
        content.cards = [.init(team: .away, player: "Kane", minute: 52, addedMinute: 1, colour: .secondYellow)]
        return content
    }()

    /// Every optional absent, every list empty.
    static let bare = ContentState(status: .scheduled, homeScore: 0, awayScore: 0, updatedAt: Date(timeIntervalSince1970: 1_764_452_700))
}
