import APNsCore
import Foundation
import JSON
import ScorecastActivity

/// Fits a content-state into its budget (``budget``: UTF-8 bytes as sent) rather than refuse a
/// valid event for size. Pure: what it gave up is returned, for the caller to log and count.
///
/// It gives up the least a fan would miss first, checking the size after each step:
/// 1. the oldest cards, then the oldest scorers, are folded into per-team counts
///    (``ScorecastActivity/ContentState/earlierCards``, ``ScorecastActivity/ContentState/earlierScorers``),
///    down to the newest ``keptCards`` cards and ``keptScorers`` scorers;
/// 2. long texts are cut at a grapheme boundary with an ellipsis: the last play's text to
///    ``playTextLength`` characters, player names to ``nameLength``, `extra` values to
///    ``extraValueLength``;
/// 3. optional fields are dropped: `extra`, then the last play's text, then the clock's label;
/// 4. the remaining cards, then scorers, are folded too.
public enum ContentStateFit {
    /// One thing given up to fit.
    public enum Step: String, Sendable, Hashable, CaseIterable {
        /// Older cards folded into counts.
        case foldedCards = "folded-cards"
        /// Older scorers folded into counts.
        case foldedScorers = "folded-scorers"
        /// Long texts cut with an ellipsis.
        case cutTexts = "cut-texts"
        /// `extra` dropped.
        case droppedExtra = "dropped-extra"
        /// The last play's text dropped.
        case droppedPlayText = "dropped-play-text"
        /// The clock's label dropped (the running clock stays).
        case droppedClockLabel = "dropped-clock-label"
    }

    /// The content-state's budget in bytes: below the 4 KB Live Activity data limit, so that
    /// an alert (at most ``alertReserve`` with the rest of the body) always fits beside it in
    /// the 5,120-byte broadcast body; otherwise the send would have to leave the alert out.
    public static let budget = 3_584
    /// Bytes of the body kept for everything but the content-state: the alert (its arguments
    /// cut by the renderer to ``alertArgumentLength``) and the other `aps` keys.
    public static let alertReserve = 5_120 - budget
    /// Characters kept of each name among the alert arguments (player, teams).
    public static let alertArgumentLength = 32

    /// Cards kept listed in step 1.
    public static let keptCards = 2
    /// Scorers kept listed in step 1.
    public static let keptScorers = 4
    /// Characters kept of the last play's text in step 2.
    public static let playTextLength = 60
    /// Characters kept of a player's name in step 2.
    public static let nameLength = 16
    /// Characters kept of an `extra` value in step 2.
    public static let extraValueLength = 16

    /// `content`, degraded in the stated order until `size` of it is at most `limit`; the steps
    /// taken, in order (empty when it fitted as it was). When even the barest state is over,
    /// the barest state is returned and the caller's size check refuses it.
    public static func fit(
        _ content: ContentState, limit: Int = budget,
        size: (ContentState) throws(LiveActivityPayloadError) -> Int
    ) throws(LiveActivityPayloadError) -> (content: ContentState, steps: [Step]) {
        var fitted = content
        var steps: [Step] = []
        func fits() throws(LiveActivityPayloadError) -> Bool { try size(fitted) <= limit }
        if try fits() { return (fitted, steps) }

        while fitted.cards.count > keptCards {
            foldOldestCard(&fitted)
            if steps.last != .foldedCards { steps.append(.foldedCards) }
            if try fits() { return (fitted, steps) }
        }
        while fitted.scorers.count > keptScorers {
            foldOldestScorer(&fitted)
            if steps.last != .foldedScorers { steps.append(.foldedScorers) }
            if try fits() { return (fitted, steps) }
        }
        if cutTexts(&fitted) {
            steps.append(.cutTexts)
            if try fits() { return (fitted, steps) }
        }
        if !fitted.extra.isEmpty {
            fitted.extra = [:]
            steps.append(.droppedExtra)
            if try fits() { return (fitted, steps) }
        }
        if fitted.lastEvent?.text != nil {
            fitted.lastEvent?.text = nil
            steps.append(.droppedPlayText)
            if try fits() { return (fitted, steps) }
        }
        if fitted.clock?.label != nil {
            fitted.clock?.label = nil
            steps.append(.droppedClockLabel)
            if try fits() { return (fitted, steps) }
        }
        while !fitted.cards.isEmpty {
            foldOldestCard(&fitted)
            if steps.last != .foldedCards { steps.append(.foldedCards) }
            if try fits() { return (fitted, steps) }
        }
        while !fitted.scorers.isEmpty {
            foldOldestScorer(&fitted)
            if steps.last != .foldedScorers { steps.append(.foldedScorers) }
            if try fits() { return (fitted, steps) }
        }
        return (fitted, steps)
    }

    /// `text` cut to at most `length` characters (grapheme clusters), the last replaced by `…`
    /// when it was longer: never splits a character, however many scalars it is made of.
    public static func cut(_ text: String, to length: Int) -> String {
        guard text.count > length, length > 0 else { return text }
        return String(text.prefix(length - 1)) + "…"
    }

    private static func foldOldestCard(_ content: inout ContentState) {
        let card = content.cards.removeFirst()
        var earlier = content.earlierCards ?? ContentState.TeamTally(home: 0, away: 0)
        earlier[card.team] += 1
        content.earlierCards = earlier
    }

    private static func foldOldestScorer(_ content: inout ContentState) {
        let scorer = content.scorers.removeFirst()
        var earlier = content.earlierScorers ?? ContentState.TeamTally(home: 0, away: 0)
        earlier[scorer.team] += 1
        content.earlierScorers = earlier
    }

    /// Cuts every long text; whether anything was cut.
    private static func cutTexts(_ content: inout ContentState) -> Bool {
        let before = content
        if let text = content.lastEvent?.text { content.lastEvent?.text = cut(text, to: playTextLength) }
        if let player = content.lastEvent?.player { content.lastEvent?.player = cut(player, to: nameLength) }
        for index in content.scorers.indices {
            content.scorers[index].player = content.scorers[index].player.map { cut($0, to: nameLength) }
        }
        for index in content.cards.indices {
            content.cards[index].player = content.cards[index].player.map { cut($0, to: nameLength) }
        }
        content.extra = content.extra.mapValues { cut($0, to: extraValueLength) }
        return content != before
    }
}
