import Foundation
import JSON
import ScorecastCore

/// A football match fed at a real feed's density, deterministic from a seed: about 3,000 events
/// where the bundled demo match has 72.
///
/// A live data feed does not send only the plays a fan talks about: it reports the ball changing
/// hands, attacks, throw-ins, goal kicks and free kicks every few seconds, the match minute once
/// a minute, and running statistics (possession, shots, corners, fouls, offsides) with them. This
/// generator makes such a stream for `POST /v1/events`, in the feed schema of
/// `Schema/event.schema.json`:
///
/// | what | kind | per 90 minutes (expected) |
/// |---|---|---|
/// | ball in possession, ball safe, attack, dangerous attack, throw-in, goal kick, free kick | `stats` | ≈ 2,600 |
/// | foul, offside, corner, shot (off target, blocked, saved) | `stats`, with its counter | ≈ 65 |
/// | goal (a shot on target that goes in; some from the spot) | `score` | ≈ 2.7 |
/// | penalty awarded | `penalty` | ≈ 0.3 |
/// | yellow card, second yellow | `card` | ≈ 3.5 |
/// | video review (sometimes disallowing the goal just scored) | `var` | ≈ 1.3 |
/// | substitution | `substitution` | 6–10 |
/// | the match minute, added time announced | `clock` | one a minute, two |
/// | fixture, kick-off, half-time, second half, full time | `scheduled`, `start`, `period`, `final` | 5 |
///
/// Every in-play event carries the full scoreboard (score, period, minute label), as real feeds
/// do, and the statistics it changed in `scoreboard.extra` (`possessionHome`/`Away` in percent,
/// `shotsHome`, `shotsOnTargetHome`, `cornersHome`, `foulsHome`, `offsidesHome` and their `Away`
/// twins: the demo match's keys). Possession is the share of time on the ball so far, rounded,
/// so late in a half it moves by a point at a time — as a real feed's does.
///
/// **Source of the shape.** The rates are round figures for a top-flight league match (about 25
/// shots, 10 corners, 22 fouls, 4 offsides, 3.5 yellow cards and 2.7 goals a match) as season
/// statistics commonly publish them; the rest (one event every two seconds or so of play) is the
/// density of commercial live feeds' push streams. No provider's event data is copied or
/// bundled: teams, players and every event are made up by the generator.
///
/// ```swift
/// let match = RealDensityMatch(start: kickOffMinusFive)
/// for event in match.events { try await post(event.jsonValue) }
/// ```
public struct RealDensityMatch: Sendable {
    /// The seed the default match uses: a 1–2 with four goals scored, one taken back by video
    /// review, a penalty, five yellow cards and eight substitutions.
    public static let defaultSeed: UInt64 = 10
    /// The sport, for `games add` and ``SportProfile/for(_:)``.
    public static let sport = "football"
    /// The home team.
    public static let homeTeam = "Harbour Athletic"
    /// The away team.
    public static let awayTeam = "Millbrook Rovers"

    /// The seed it was made from.
    public let seed: UInt64
    /// The game id every event carries.
    public let game: String
    /// When the `scheduled` event happened; kick-off is five minutes later.
    public let start: Date
    /// Every event, in `seq` order (1, 2, …), with times that never go backwards.
    public let events: [FeedEvent]

    /// Kick-off, five minutes after ``start``.
    public var kickoff: Date { start.addingTimeInterval(Self.announcementLead) }

    /// The final whistle: the `final` event's time.
    public var fullTime: Date { events.last?.occurredAt ?? start }

    /// The match's length in real time, kick-off to the final whistle (both halves, their added
    /// time and half-time), in minutes: what a fan follows, and what pushes per minute count over.
    public var realTimeMinutes: Double { fullTime.timeIntervalSince(kickoff) / 60 }

    /// The final score, home and away.
    public var finalScore: (home: Int, away: Int) {
        let last = events.last?.scoreboard
        return (last?.home ?? 0, last?.away ?? 0)
    }

    /// Makes the match for `seed`, the `scheduled` event at `start`, every event for `game`.
    public init(seed: UInt64 = RealDensityMatch.defaultSeed, game: String = "rdm-hat-mbr", start: Date) {
        self.seed = seed
        self.game = game
        self.start = start
        var script = MatchScript(seed: seed, game: game, start: start)
        events = script.play()
    }

    static let announcementLead: TimeInterval = 5 * 60
}

/// The play-by-play, written as it goes: a small state machine over match time that emits feed
/// events.
private struct MatchScript {
    /// What can happen while the ball is in play, with how often per 90 minutes.
    enum Happening: CaseIterable {
        case possessionChange, ballSafe, attack, dangerousAttack, throwIn, goalKick, freeKick
        case foul, offside, corner, shotOffTarget, shotBlocked, shotOnTarget
        case yellowCard, penaltyAwarded, videoReview

        var perMatch: Double {
            switch self {
            case .possessionChange: 900
            case .ballSafe: 1_150
            case .attack: 230
            case .dangerousAttack: 110
            case .throwIn: 45
            case .goalKick: 17
            case .freeKick: 25
            case .foul: 22
            case .offside: 4
            case .corner: 10
            case .shotOffTarget: 10
            case .shotBlocked: 6
            case .shotOnTarget: 9
            case .yellowCard: 3.5
            case .penaltyAwarded: 0.3
            case .videoReview: 1
            }
        }
    }

    /// Counted statistics, per side.
    struct Tally {
        var shots = 0
        var shotsOnTarget = 0
        var corners = 0
        var fouls = 0
        var offsides = 0
    }

    let game: String
    let start: Date
    var random: SplitMix64
    var events: [FeedEvent] = []

    var home = 0
    var away = 0
    var period = "1H"
    /// Seconds of play since the half began.
    var halfElapsed: Double = 0
    /// The match minute the half starts at (0 or 45).
    var halfOffset = 0
    var regulation = 45
    /// Seconds after ``start`` where the current half kicked off.
    var halfStartedAt: Double = RealDensityMatch.announcementLead
    var inPossession: TeamSide = .home
    /// Seconds each side has had the ball.
    var onTheBall: [TeamSide: Double] = [.home: 0, .away: 0]
    var possessionSince: Double = 0
    var tally: [TeamSide: Tally] = [.home: Tally(), .away: Tally()]
    var booked: Set<String> = []
    var sentOff: Set<String> = []
    var onPitch: [TeamSide: [String]]
    var bench: [TeamSide: [String]]
    /// Match seconds (from minute 0) at which a substitution is due, soonest first.
    var substitutions: [Double]

    init(seed: UInt64, game: String, start: Date) {
        self.game = game
        self.start = start
        random = SplitMix64(seed: seed)
        onPitch = [.home: Squads.home.prefix(11).map { $0 }, .away: Squads.away.prefix(11).map { $0 }]
        bench = [.home: Squads.home.dropFirst(11).map { $0 }, .away: Squads.away.dropFirst(11).map { $0 }]
        substitutions = []
    }

    mutating func play() -> [FeedEvent] {
        emit(.scheduled, at: 0, scoreboard: ScoreboardUpdate(
            home: 0, away: 0, extra: ["venue": "Quayside Stadium", "referee": "Ruth Calloway"]),
            description: "\(RealDensityMatch.homeTeam) v \(RealDensityMatch.awayTeam) at Quayside Stadium.")
        let firstAdded = 1 + random.below(4)
        let secondAdded = 3 + random.below(5)
        substitutions = (0..<(6 + random.below(5))).map { _ in Double(55 + random.below(35)) * 60 }.sorted()
        emit(.start, at: halfStartedAt, description: "Kick-off! \(RealDensityMatch.homeTeam) get us under way.")
        playHalf(added: firstAdded)
        emit(.period, at: halfStartedAt + halfElapsed, period: "HT", description: "Half-time.")
        halfStartedAt += halfElapsed + 15 * 60
        period = "2H"
        halfOffset = 45
        halfElapsed = 0
        possessionSince = 0
        inPossession = .away
        emit(.period, at: halfStartedAt, description: "The second half is under way.")
        playHalf(added: secondAdded)
        emit(.final, at: halfStartedAt + halfElapsed, period: "FT",
             description: "Full time: \(RealDensityMatch.homeTeam) \(home)-\(away) \(RealDensityMatch.awayTeam).")
        return events
    }

    /// One half: a minute tick at each minute's start, the added time announced at its end, and
    /// happenings at random gaps in between.
    mutating func playHalf(added: Int) {
        let length = Double((regulation + added) * 60)
        let total = Happening.allCases.reduce(0) { $0 + $1.perMatch }
        let meanGap = 90 * 60 / total
        var nextMinute: Double = 60
        var announced = false
        while true {
            let gap = -log(1 - random.unit()) * meanGap
            let next = halfElapsed + gap
            while nextMinute <= min(next, length - 1) {
                // A restart after a goal or a penalty may have run past the minute's start.
                advance(to: max(halfElapsed, nextMinute))
                if !announced, nextMinute >= Double(regulation * 60) {
                    announced = true
                    emit(.clock, at: now, scoreboard: board(addedTime: added), description: "\(added) minutes of added time.")
                } else {
                    emit(.clock, at: now, scoreboard: board(), description: nil)
                }
                nextMinute += 60
            }
            guard next < length else { break }
            advance(to: max(halfElapsed, next))
            if period == "2H", let due = substitutions.first, Double(halfOffset * 60) + halfElapsed >= due {
                substitutions.removeFirst()
                substitute()
            }
            happen(pick(total: total))
        }
        // The whistle, in the half's last second.
        advance(to: max(halfElapsed, length - 1))
    }

    var now: Double { halfStartedAt + halfElapsed }

    mutating func advance(to elapsed: Double) {
        halfElapsed = elapsed
    }

    /// The minute label as broadcasts write it: `N'` is the N-th minute, `45+2'` added time.
    var clockLabel: String {
        let minute = Int(halfElapsed / 60) + 1
        if minute > regulation { return "\(halfOffset + regulation)+\(minute - regulation)'" }
        return "\(halfOffset + minute)'"
    }

    func board(extra: [String: JSONValue] = [:], addedTime: Int? = nil) -> ScoreboardUpdate {
        ScoreboardUpdate(
            home: home, away: away, period: .set(period), clock: .set(clockLabel), extra: extra,
            addedTime: addedTime.map { .set($0) } ?? .keep)
    }

    mutating func pick(total: Double) -> Happening {
        var draw = random.unit() * total
        for happening in Happening.allCases {
            draw -= happening.perMatch
            if draw < 0 { return happening }
        }
        return .ballSafe
    }

    /// Possession so far, in whole percent for the home side.
    var possessionHome: Int {
        var held = onTheBall
        held[inPossession, default: 0] += now - possessionSince
        let total = (held[.home] ?? 0) + (held[.away] ?? 0)
        guard total > 0 else { return 50 }
        return Int(((held[.home] ?? 0) / total * 100).rounded())
    }

    var possessionExtra: [String: JSONValue] {
        ["possessionHome": .integer(possessionHome), "possessionAway": .integer(100 - possessionHome)]
    }

    mutating func changePossession(to side: TeamSide) {
        guard side != inPossession else { return }
        onTheBall[inPossession, default: 0] += now - possessionSince
        possessionSince = now
        inPossession = side
    }

    func name(_ side: TeamSide) -> String { side == .home ? RealDensityMatch.homeTeam : RealDensityMatch.awayTeam }
    func other(_ side: TeamSide) -> TeamSide { side == .home ? .away : .home }

    mutating func player(of side: TeamSide) -> String {
        let squad = onPitch[side] ?? []
        // Outfield players only: the goalkeeper (first) rarely shoots or fouls.
        return squad[1 + random.below(squad.count - 1)]
    }

    mutating func count(_ side: TeamSide, _ change: (inout Tally) -> Void) -> [String: JSONValue] {
        change(&tally[side, default: Tally()])
        let team = tally[side] ?? Tally()
        let suffix = side == .home ? "Home" : "Away"
        return [
            "shots\(suffix)": .integer(team.shots), "shotsOnTarget\(suffix)": .integer(team.shotsOnTarget),
            "corners\(suffix)": .integer(team.corners), "fouls\(suffix)": .integer(team.fouls),
            "offsides\(suffix)": .integer(team.offsides),
        ]
    }

    mutating func happen(_ happening: Happening) {
        let side = inPossession
        switch happening {
        case .possessionChange:
            changePossession(to: other(side))
            emit(.stats, at: now, scoreboard: board(extra: possessionExtra), description: "\(name(other(side))) in possession.",
                 team: other(side))
        case .ballSafe:
            emit(.stats, at: now, scoreboard: board(extra: possessionExtra), description: "Ball safe: \(name(side)).", team: side)
        case .attack:
            emit(.stats, at: now, scoreboard: board(extra: possessionExtra), description: "Attack: \(name(side)).", team: side)
        case .dangerousAttack:
            emit(.stats, at: now, scoreboard: board(extra: possessionExtra), description: "Dangerous attack: \(name(side)).", team: side)
        case .throwIn:
            let taker = random.below(2) == 0 ? side : other(side)
            changePossession(to: taker)
            emit(.stats, at: now, scoreboard: board(extra: possessionExtra), description: "Throw-in, \(name(taker)).", team: taker)
        case .goalKick:
            let defending = other(side)
            changePossession(to: defending)
            emit(.stats, at: now, scoreboard: board(extra: possessionExtra), description: "Goal kick, \(name(defending)).", team: defending)
        case .freeKick:
            emit(.stats, at: now, scoreboard: board(extra: possessionExtra), description: "Free kick, \(name(side)).", team: side)
        case .foul:
            let fouling = other(side)
            let culprit = player(of: fouling)
            emit(.stats, at: now, scoreboard: board(extra: count(fouling) { $0.fouls += 1 }),
                 description: "Foul by \(culprit) (\(name(fouling))).", team: fouling, player: culprit)
        case .offside:
            let caught = player(of: side)
            changePossession(to: other(side))
            emit(.stats, at: now, scoreboard: board(extra: count(side) { $0.offsides += 1 }),
                 description: "Offside: \(caught) (\(name(side))).", team: side, player: caught)
        case .corner:
            emit(.stats, at: now, scoreboard: board(extra: count(side) { $0.corners += 1 }), description: "Corner, \(name(side)).", team: side)
        case .shotOffTarget, .shotBlocked:
            let shooter = player(of: side)
            let how = happening == .shotBlocked ? "Shot blocked" : "Shot off target"
            emit(.stats, at: now, scoreboard: board(extra: count(side) { $0.shots += 1 }),
                 description: "\(how): \(shooter) (\(name(side))).", team: side, player: shooter)
            changePossession(to: other(side))
        case .shotOnTarget:
            shoot(side, penalty: false)
        case .yellowCard:
            book(other(side))
        case .penaltyAwarded:
            let taker = player(of: side)
            emit(.penalty, at: now, scoreboard: board(), description: "Penalty to \(name(side))!", team: side, player: taker)
            halfElapsed += 60
            shoot(side, penalty: true, taker: taker)
        case .videoReview:
            emit(.videoReview, at: now, scoreboard: board(), description: "VAR check: penalty claim for \(name(side)). No penalty.",
                 team: side)
        }
    }

    /// A shot on target: in about one case in three (four in five from the spot) a goal.
    mutating func shoot(_ side: TeamSide, penalty: Bool, taker: String? = nil) {
        let shooter = taker ?? player(of: side)
        let stats = count(side) {
            $0.shots += 1
            $0.shotsOnTarget += 1
        }
        guard random.unit() < (penalty ? 0.78 : 0.32) else {
            emit(.stats, at: now, scoreboard: board(extra: stats), description: "Saved: \(shooter) (\(name(side))).",
                 team: side, player: shooter)
            changePossession(to: other(side))
            return
        }
        if side == .home { home += 1 } else { away += 1 }
        let goal = emit(
            .score, at: now, scoreboard: board(extra: stats),
            description: "GOAL! \(RealDensityMatch.homeTeam) \(home)-\(away) \(RealDensityMatch.awayTeam). \(shooter) scores.",
            team: side, player: shooter, penalty: penalty ? true : nil)
        // Half the goals are checked by video review before the restart.
        if random.unit() < 0.5 {
            halfElapsed += 50
            review(goal: goal, team: side, scorer: shooter)
        }
        // The restart: the other side kicks off.
        halfElapsed += 45
        changePossession(to: other(side))
    }

    /// A video review of the goal just scored: taken back one time in three, the score corrected.
    mutating func review(goal: String, team: TeamSide, scorer: String) {
        guard random.unit() < 0.35 else {
            emit(.videoReview, at: now, scoreboard: board(), description: "VAR check complete: the goal stands.", team: team)
            return
        }
        if team == .home { home -= 1 } else { away -= 1 }
        emit(.videoReview, at: now, scoreboard: board(), description: "VAR: goal disallowed for offside.", team: team,
             player: scorer, disallows: goal)
    }

    /// A yellow card for a player of `side`; a second one sends the player off.
    mutating func book(_ side: TeamSide) {
        let culprit = player(of: side)
        if booked.contains(culprit) {
            sentOff.insert(culprit)
            onPitch[side]?.removeAll { $0 == culprit }
            emit(.card, at: now, scoreboard: board(), description: "Second yellow: \(culprit) (\(name(side))) is sent off.",
                 team: side, player: culprit, card: .secondYellow)
        } else {
            booked.insert(culprit)
            emit(.card, at: now, scoreboard: board(), description: "Yellow card: \(culprit) (\(name(side))).",
                 team: side, player: culprit, card: .yellow)
        }
    }

    /// A substitution for a side that still has players on the bench.
    mutating func substitute() {
        let side: TeamSide = random.below(2) == 0 ? .home : .away
        guard var waiting = bench[side], !waiting.isEmpty, var playing = onPitch[side], playing.count > 1 else { return }
        let coming = waiting.removeFirst()
        let index = 1 + random.below(playing.count - 1)
        let going = playing[index]
        playing[index] = coming
        bench[side] = waiting
        onPitch[side] = playing
        emit(.substitution, at: now, scoreboard: board(), description: "Substitution, \(name(side)): \(coming) replaces \(going).",
             team: side, player: coming)
    }

    @discardableResult
    mutating func emit(
        _ kind: EventKind, at seconds: Double, period: String? = nil, scoreboard: ScoreboardUpdate? = nil, description: String?,
        team: TeamSide? = nil, player: String? = nil, penalty: Bool? = nil, card: CardColour? = nil, disallows: String? = nil
    ) -> String {
        if let period { self.period = period }
        let seq = events.count + 1
        let id = "\(game)-\(seq)"
        var board = scoreboard ?? self.board()
        if period != nil { board.period = .set(self.period) }
        let earliest = events.last?.occurredAt ?? start
        let occurredAt = max(earliest, start.addingTimeInterval(seconds.rounded(.down)))
        events.append(FeedEvent(
            id: id, game: game, seq: seq, occurredAt: occurredAt, kind: kind, scoreboard: board, description: description,
            team: team, player: player, shortName: player.flatMap { $0.split(separator: " ").last.map(String.init) },
            penalty: penalty, card: card, disallows: disallows))
        return id
    }
}

/// The two made-up squads: eleven starters (the goalkeeper first), then the bench.
private enum Squads {
    static let home = [
        "Tomasz Wilk", "Aaron Lacey", "Idris Mensah", "Callum Reyes", "Jonas Brandt", "Owen Pryce", "Luca Moretti",
        "Samir Haddad", "Kieran Doyle", "Mateo Ruiz", "Ben Ashworth", "Felix Grant", "Noah Kessler", "Ravi Patel",
        "Elliot Marsh", "Dario Conti",
    ]
    static let away = [
        "Hugo Lindqvist", "Tariq Bello", "Sean Gallagher", "Marco Vitale", "Leon Fischer", "Dylan Hart", "Pablo Serrano",
        "Yusuf Demir", "Jack Thorne", "Emil Novak", "Rory Quinn", "Adam Sowa", "Theo Laurent", "Kofi Asante",
        "Liam Byrne", "Nico Albers",
    ]
}

/// A small, fast generator with a 64-bit state (Steele, Lea and Flood's SplitMix64): the same
/// seed gives the same match on every machine and Swift version, which `SystemRandomNumberGenerator`
/// cannot promise.
private struct SplitMix64 {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// An integer in 0 ..< `bound` (`bound` > 0).
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
