import Foundation
import ScorecastActivity

/// What scorecast knows about a sport: how its clock runs, which periods are breaks and how
/// long they last, what its Live Activity lists, and how long a shown state stays fresh.
///
/// Each sport's clock convention (what a feed's clock text means, and what the clock reads when
/// a period begins):
/// - football: a minute label `N'` is the N-th minute, so it starts at (N − 1) × 60 s (`1'` is
///   0:00–0:59; `0'` is read as kick-off, 0:00). Added time `45+2'` is written as broadcasts
///   write it, the second added minute after 45, and starts at 46:00. Kick-off reads 0:00, the
///   second half 45:00, extra time 90:00 and 105:00; a shoot-out has no clock.
/// - basketball: the clock counts down the time left; each quarter begins at 12:00, each
///   overtime at 5:00. `04:12` means 4 min 12 s left.
/// - baseball: no clock; periods are half-innings.
/// - generic: the clock counts up from whatever reading the feed gives; no period start is
///   assumed.
///
/// Games name their sport or league freely (`football`, `soccer`, `epl`, `nba`, `mlb`); ``for(_:)``
/// finds the profile by any of its ``names`` (case-insensitive), else ``generic``.
public struct SportProfile: Sendable, Hashable {
    /// The profile's name (`football`, `basketball`, `baseball`, `generic`).
    public var name: String
    /// Sport and league keys that select it (lower case).
    public var names: Set<String>
    /// How the game clock runs; `nil` for sports without a clock (baseball).
    public var clockDirection: ContentState.Clock.Direction?
    /// Whether the clock runs whenever the game is live outside a break, without the feed
    /// saying so (football: the referee never stops it); otherwise it runs only while the feed
    /// says `clockRunning: true`.
    public var clockRunsThroughPlay: Bool
    /// Regulation length of a period in seconds, when fixed.
    public var periodLength: Double?
    /// How far (seconds) a reported clock may be from the running clock's own reading and still
    /// count as the same clock: within it, the anchor is kept and nothing visible changes.
    public var clockTolerance: Double
    /// Breaks between periods: a period label (upper-cased, exact) and its expected length in
    /// seconds.
    public var breaks: [String: Double]
    /// The clock's reading when a period begins: a period label (upper-cased, exact) and the
    /// reading in seconds (elapsed counting up, left counting down).
    public var periodStarts: [String: Double]
    /// Goals are few and named: the Live Activity lists scorers and minutes.
    public var listsScorers: Bool
    /// The sport shows cards (and counts red ones).
    public var hasCards: Bool
    /// Plays are dated by match minute (`67'`, `45+2'`).
    public var countsMinutes: Bool
    /// After this many seconds without a visible change, one routine update goes out anyway,
    /// so the phone's `stale-date` moves on while a quiet game goes on: keep it below the
    /// in-play staleness (`SCORECAST_STALE_SECONDS`, default 900).
    public var refreshInterval: Double

    /// Football (soccer): a count-up clock that runs through each half, 45-minute halves,
    /// 15-minute half-time, scorers and cards listed.
    public static let football = SportProfile(
        name: "football",
        names: ["football", "soccer", "epl", "premier-league", "laliga", "la-liga", "serie-a", "bundesliga", "ligue-1", "mls", "ucl", "uefa", "fifa"],
        clockDirection: .up, clockRunsThroughPlay: true, periodLength: 45 * 60, clockTolerance: 60,
        breaks: ["HT": 15 * 60, "ET": 5 * 60, "ETHT": 60, "ET-HT": 60, "BET": 5 * 60, "BP": 3 * 60],
        periodStarts: ["1H": 0, "2H": 45 * 60, "ET1": 90 * 60, "1ET": 90 * 60, "ET2": 105 * 60, "2ET": 105 * 60],
        listsScorers: true, hasCards: true, countsMinutes: true,
        refreshInterval: 10 * 60
    )

    /// Basketball: a count-down clock the feed starts and stops, 12-minute quarters (NBA),
    /// short quarter breaks and a 15-minute half-time; no scorer list.
    public static let basketball = SportProfile(
        name: "basketball",
        names: ["basketball", "nba", "wnba", "euroleague", "ncaab", "fiba"],
        clockDirection: .down, clockRunsThroughPlay: false, periodLength: 12 * 60, clockTolerance: 2,
        breaks: ["HT": 15 * 60, "HALFTIME": 15 * 60, "END Q1": 130, "END Q3": 130, "Q1 END": 130, "Q3 END": 130, "END OT": 130],
        periodStarts: Dictionary(uniqueKeysWithValues:
            (1...4).map { ("Q\($0)", 12.0 * 60) } + ["OT"].map { ($0, 5.0 * 60) } + (1...4).map { ("OT\($0)", 5.0 * 60) }),
        listsScorers: false, hasCards: false, countsMinutes: false,
        refreshInterval: 5 * 60
    )

    /// Baseball: no clock; half-inning breaks of about 2 minutes 20 (longer in the 7th).
    public static let baseball = SportProfile(
        name: "baseball",
        names: ["baseball", "mlb", "npb", "kbo"],
        clockDirection: nil, clockRunsThroughPlay: false, periodLength: nil, clockTolerance: 0,
        breaks: Dictionary(uniqueKeysWithValues: (1...12).flatMap { inning in
            ["MID \(ordinal(inning))", "END \(ordinal(inning))"].map { ($0, inning == 7 ? 300.0 : 140.0) }
        }),
        periodStarts: [:],
        listsScorers: false, hasCards: false, countsMinutes: false,
        refreshInterval: 10 * 60
    )

    /// Any other sport: the clock counts up only as the feed says; nothing listed.
    public static let generic = SportProfile(
        name: "generic", names: [],
        clockDirection: .up, clockRunsThroughPlay: false, periodLength: nil, clockTolerance: 2,
        breaks: ["HT": 15 * 60, "BREAK": 10 * 60],
        periodStarts: [:],
        listsScorers: false, hasCards: false, countsMinutes: false,
        refreshInterval: 10 * 60
    )

    /// Every named profile.
    public static let all: [SportProfile] = [.football, .basketball, .baseball]

    /// The profile of a sport or league key, else ``generic``.
    public static func `for`(_ sport: String) -> SportProfile {
        let key = sport.lowercased()
        return all.first { $0.names.contains(key) } ?? .generic
    }

    /// The expected length of the break `period` names, or `nil` when it is not a break.
    public func breakLength(of period: String?) -> Double? {
        guard let period else { return nil }
        return breaks[period.uppercased()]
    }

    /// The clock's reading when `period` begins, or `nil` when the sport assumes none.
    public func clockAtStart(of period: String?) -> Double? {
        guard let period else { return nil }
        return periodStarts[period.uppercased()]
    }

    /// The clock's reading in seconds from a feed label: `67'` and `45+2'` (match minutes: the
    /// N-th minute starts at (N − 1) × 60 s, so `67'` is 66:00 and `45+2'` is 46:00; `0'` is
    /// 0:00), `04:12` (minutes and seconds), `12.5` (seconds).
    public static func seconds(fromLabel label: String) -> Double? {
        let text = label.trimmingCharacters(in: .whitespaces)
        if text.hasSuffix("'") {
            let parts = text.dropLast().split(separator: "+", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), let minutes = parts.map({ Int($0) }).reduce(Optional(0), { total, next in
                guard let total, let next, next >= 0 else { return nil }
                return total + next
            }) else { return nil }
            // The label names the minute under way, not the minutes completed.
            return Double(max(0, minutes - 1) * 60)
        }
        let clockParts = text.split(separator: ":", omittingEmptySubsequences: false)
        if clockParts.count == 2, let minutes = Int(clockParts[0]), let seconds = Double(clockParts[1]),
            minutes >= 0, (0..<60).contains(seconds) {
            return Double(minutes * 60) + seconds
        }
        if let seconds = Double(text), seconds >= 0, seconds.isFinite { return seconds }
        return nil
    }

    /// A match minute from a feed label: `67'` → (67, nil), `45+2'` → (45, 2).
    public static func minute(fromLabel label: String?) -> (minute: Int, added: Int?)? {
        guard let label, label.hasSuffix("'") else { return nil }
        let parts = label.dropLast().split(separator: "+").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard let first = parts.first, let minute = first, minute >= 0 else { return nil }
        if parts.count == 2, let added = parts[1], added >= 0 { return (minute, added) }
        return parts.count == 1 ? (minute, nil) : nil
    }

    private static func ordinal(_ number: Int) -> String {
        let suffix: String
        switch (number % 10, number % 100) {
        case (_, 11...13): suffix = "TH"
        case (1, _): suffix = "ST"
        case (2, _): suffix = "ND"
        case (3, _): suffix = "RD"
        default: suffix = "TH"
        }
        return "\(number)\(suffix)"
    }
}
