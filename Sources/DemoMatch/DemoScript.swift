/// The demo match as data: every incident of Northbridge United v Castleford City, at match
/// time. Clock ticks every three minutes of play are added by `DemoFeed`; so are the running
/// score and the stats descriptions.
enum DemoScript {
    /// One scripted incident.
    struct Entry: Sendable {
        var time: MatchTime
        var kind: DemoEventKind
        var team: DemoTeamSide? = nil
        var player: String? = nil
        /// Empty for kinds whose description `DemoFeed` writes (stats).
        var description: String = ""
        var extra: [String: DemoScalar] = [:]
    }

    /// A point of the match, in feed seconds from the `scheduled` event, with its period and clock.
    struct MatchTime: Sendable {
        var offset: Int
        var period: DemoPeriod
        var clock: String

        /// Kick-off comes two minutes after the match is announced.
        static let kickoff = 120
        /// The first half lasts 45 + 2 minutes, then 15 minutes of half-time.
        static let firstHalfAdded = 2
        static let secondHalfKickoff = kickoff + (45 + firstHalfAdded + 15) * 60

        /// Before kick-off.
        static let announced = MatchTime(offset: 0, period: .firstHalf, clock: "0'")

        /// `minute:second` of the first half, with `added` minutes of stoppage time past 45.
        static func first(_ minute: Int, _ second: Int = 0, added: Int = 0) -> MatchTime {
            let clock = added > 0 ? "45+\(added)'" : "\(minute)'"
            return MatchTime(offset: kickoff + (minute + added) * 60 + second, period: .firstHalf, clock: clock)
        }

        /// Half-time, `second` seconds after the whistle.
        static func halfTime(_ second: Int = 0) -> MatchTime {
            MatchTime(offset: kickoff + (45 + firstHalfAdded) * 60 + second, period: .halfTime, clock: "45+\(firstHalfAdded)'")
        }

        /// `minute:second` of the second half (minutes 45…90), with `added` minutes past 90.
        static func second(_ minute: Int, _ second: Int = 0, added: Int = 0) -> MatchTime {
            let clock = added > 0 ? "90+\(added)'" : "\(minute)'"
            return MatchTime(offset: secondHalfKickoff + (minute - 45 + added) * 60 + second, period: .secondHalf, clock: clock)
        }

        /// Full time, `second` seconds after `added` minutes of stoppage time past 90.
        static func fullTime(added: Int, _ second: Int = 0) -> MatchTime {
            MatchTime(offset: secondHalfKickoff + (45 + added) * 60 + second, period: .fullTime, clock: "90+\(added)'")
        }
    }

    /// Cumulative match statistics, home then away.
    static func stats(
        shots: (Int, Int), onTarget: (Int, Int), possession: Int, corners: (Int, Int), fouls: (Int, Int)
    ) -> [String: DemoScalar] {
        [
            "shotsHome": .int(shots.0), "shotsAway": .int(shots.1),
            "shotsOnTargetHome": .int(onTarget.0), "shotsOnTargetAway": .int(onTarget.1),
            "possessionHome": .int(possession), "possessionAway": .int(100 - possession),
            "cornersHome": .int(corners.0), "cornersAway": .int(corners.1),
            "foulsHome": .int(fouls.0), "foulsAway": .int(fouls.1),
        ]
    }

    static let entries: [Entry] = [
        Entry(time: .announced, kind: .scheduled,
              description: "Northbridge United v Castleford City is scheduled at Riverside Park. Referee: Andrew Milne.",
              extra: ["venue": "Riverside Park", "referee": "Andrew Milne", "round": 17]),
        Entry(time: .first(0), kind: .start,
              description: "Kick-off! Northbridge United get the first half under way at Riverside Park."),
        Entry(time: .first(10, 5), kind: .stats,
              extra: stats(shots: (3, 1), onTarget: (1, 0), possession: 58, corners: (2, 0), fouls: (2, 3))),
        Entry(time: .first(12, 31), kind: .score, team: .home, player: "Marcus Bell",
              description: "GOAL! Northbridge United 1-0 Castleford City. Marcus Bell (Northbridge United) right-footed shot from the centre of the box to the bottom left corner, assisted by Tomás Ferreira with a through ball.",
              extra: ["assist": "Tomás Ferreira", "method": "right foot", "minute": 12]),
        Entry(time: .first(19, 5), kind: .card, team: .away, player: "Daniel Okafor",
              description: "Yellow card: Daniel Okafor (Castleford City) for a late challenge on Tomás Ferreira.",
              extra: ["card": "yellow"]),
        Entry(time: .first(20, 10), kind: .stats,
              extra: stats(shots: (5, 3), onTarget: (2, 1), possession: 55, corners: (3, 1), fouls: (3, 6))),
        Entry(time: .first(26, 40), kind: .var, team: .away, player: "Ryan Doyle",
              description: "VAR check: possible penalty to Castleford City after Ryan Doyle goes down under a challenge from Leon Baptiste.",
              extra: ["check": "penalty", "decision": "under review"]),
        Entry(time: .first(27, 35), kind: .var, team: .away,
              description: "VAR check complete: no penalty. Play restarts with a Northbridge United goal kick.",
              extra: ["check": "penalty", "decision": "no penalty"]),
        Entry(time: .first(30, 15), kind: .stats,
              extra: stats(shots: (6, 6), onTarget: (2, 2), possession: 51, corners: (3, 3), fouls: (5, 7))),
        Entry(time: .first(33, 52), kind: .score, team: .away, player: "Ryan Doyle",
              description: "GOAL! Northbridge United 1-1 Castleford City. Ryan Doyle (Castleford City) header from very close range to the top right corner, assisted by Jamal Reid with a cross from the left.",
              extra: ["assist": "Jamal Reid", "method": "header", "minute": 34]),
        Entry(time: .first(38, 10), kind: .card, team: .home, player: "Tomás Ferreira",
              description: "Yellow card: Tomás Ferreira (Northbridge United) for pulling back Jamal Reid on the counter-attack.",
              extra: ["card": "yellow"]),
        Entry(time: .first(40, 20), kind: .stats,
              extra: stats(shots: (8, 8), onTarget: (3, 3), possession: 50, corners: (4, 3), fouls: (7, 9))),
        Entry(time: .first(44, 50), kind: .clock,
              description: "Fourth official: a minimum of 2 minutes of added time.",
              extra: ["addedMinutes": 2]),
        Entry(time: .halfTime(), kind: .period,
              description: "Half-time: Northbridge United 1-1 Castleford City.",
              extra: ["whistle": "half-time"]),
        Entry(time: .halfTime(40), kind: .stats,
              extra: stats(shots: (9, 8), onTarget: (3, 3), possession: 51, corners: (4, 4), fouls: (8, 9))),
        Entry(time: .second(45), kind: .period,
              description: "Second half under way: Northbridge United 1-1 Castleford City.",
              extra: ["whistle": "second half"]),
        Entry(time: .second(45, 5), kind: .substitution, team: .away, player: "Lewis Grant",
              description: "Substitution, Castleford City: Lewis Grant replaces Daniel Okafor.",
              extra: ["playerOff": "Daniel Okafor"]),
        Entry(time: .second(52, 48), kind: .score, team: .away, player: "Lewis Grant",
              description: "GOAL! Northbridge United 1-2 Castleford City. Lewis Grant (Castleford City) left-footed shot from outside the box to the top left corner, assisted by Ryan Doyle.",
              extra: ["assist": "Ryan Doyle", "method": "left foot", "minute": 53]),
        Entry(time: .second(55, 20), kind: .stats,
              extra: stats(shots: (10, 11), onTarget: (3, 5), possession: 47, corners: (4, 5), fouls: (9, 10))),
        Entry(time: .second(57, 10), kind: .substitution, team: .home, player: "Kofi Mensah",
              description: "Substitution, Northbridge United: Kofi Mensah replaces Sam Whitaker.",
              extra: ["playerOff": "Sam Whitaker"]),
        Entry(time: .second(57, 40), kind: .substitution, team: .home, player: "Oliver Quinn",
              description: "Substitution, Northbridge United: Oliver Quinn replaces Harry Lowe.",
              extra: ["playerOff": "Harry Lowe"]),
        Entry(time: .second(61, 15), kind: .card, team: .away, player: "Jamal Reid",
              description: "Yellow card: Jamal Reid (Castleford City) for a foul on Kofi Mensah.",
              extra: ["card": "yellow"]),
        Entry(time: .second(64, 22), kind: .score, team: .home, player: "Kofi Mensah",
              description: "GOAL! Northbridge United 2-2 Castleford City. Kofi Mensah (Northbridge United) right-footed shot from the left side of the six-yard box to the bottom right corner, assisted by Oliver Quinn.",
              extra: ["assist": "Oliver Quinn", "method": "right foot", "minute": 64]),
        Entry(time: .second(64, 55), kind: .var, team: .home, player: "Kofi Mensah",
              description: "VAR check: possible offside in the build-up to Kofi Mensah's goal.",
              extra: ["check": "goal", "decision": "under review"]),
        Entry(time: .second(65, 40), kind: .var, team: .home, player: "Kofi Mensah",
              description: "VAR check complete: the goal stands. Oliver Quinn was level with the last defender.",
              extra: ["check": "goal", "decision": "goal stands"]),
        Entry(time: .second(65, 50), kind: .stats,
              extra: stats(shots: (13, 12), onTarget: (5, 5), possession: 52, corners: (6, 5), fouls: (11, 12))),
        Entry(time: .second(68, 30), kind: .substitution, team: .away, player: "Nathan Burke",
              description: "Substitution, Castleford City: Nathan Burke replaces Ryan Doyle.",
              extra: ["playerOff": "Ryan Doyle"]),
        Entry(time: .second(71, 5), kind: .substitution, team: .home, player: "Callum Price",
              description: "Substitution, Northbridge United: Callum Price replaces Tomás Ferreira.",
              extra: ["playerOff": "Tomás Ferreira"]),
        Entry(time: .second(73, 44), kind: .card, team: .away, player: "Connor Hale",
              description: "Red card: Connor Hale (Castleford City) is sent off for serious foul play on Marcus Bell.",
              extra: ["card": "red"]),
        Entry(time: .second(75, 20), kind: .substitution, team: .away, player: "Aaron Wells",
              description: "Substitution, Castleford City: Aaron Wells replaces Lewis Grant.",
              extra: ["playerOff": "Lewis Grant"]),
        Entry(time: .second(75, 45), kind: .stats,
              extra: stats(shots: (16, 13), onTarget: (6, 6), possession: 57, corners: (7, 5), fouls: (12, 15))),
        Entry(time: .second(79, 12), kind: .var, team: .away, player: "Ethan Cole",
              description: "VAR check: possible handball by Ethan Cole (Castleford City) in the penalty area.",
              extra: ["check": "penalty", "decision": "under review"]),
        Entry(time: .second(80, 5), kind: .var, team: .home,
              description: "VAR check complete: penalty to Northbridge United for handball by Ethan Cole.",
              extra: ["check": "penalty", "decision": "penalty awarded"]),
        Entry(time: .second(80, 58), kind: .score, team: .home, player: "Marcus Bell",
              description: "GOAL! Northbridge United 3-2 Castleford City. Marcus Bell (Northbridge United) converts the penalty with a right-footed shot to the bottom left corner.",
              extra: ["method": "penalty", "minute": 81]),
        Entry(time: .second(82, 30), kind: .card, team: .home, player: "Callum Price",
              description: "Yellow card: Callum Price (Northbridge United) for a cynical foul to stop a counter-attack.",
              extra: ["card": "yellow"]),
        Entry(time: .second(84, 10), kind: .substitution, team: .home, player: "Jordan Ellis",
              description: "Substitution, Northbridge United: Jordan Ellis replaces Marcus Bell.",
              extra: ["playerOff": "Marcus Bell"]),
        Entry(time: .second(85, 15), kind: .stats,
              extra: stats(shots: (20, 14), onTarget: (8, 6), possession: 61, corners: (9, 6), fouls: (13, 17))),
        Entry(time: .second(86, 40), kind: .substitution, team: .away, player: "Theo Marsh",
              description: "Substitution, Castleford City: Theo Marsh replaces Jamal Reid.",
              extra: ["playerOff": "Jamal Reid"]),
        Entry(time: .second(88, 25), kind: .card, team: .away, player: "Ethan Cole",
              description: "Yellow card: Ethan Cole (Castleford City) for dissent.",
              extra: ["card": "yellow"]),
        Entry(time: .second(89, 50), kind: .clock,
              description: "Fourth official: a minimum of 5 minutes of added time.",
              extra: ["addedMinutes": 5]),
        Entry(time: .second(90, 10, added: 3), kind: .card, team: .home, player: "Jordan Ellis",
              description: "Yellow card: Jordan Ellis (Northbridge United) for time-wasting.",
              extra: ["card": "yellow"]),
        Entry(time: .fullTime(added: 5, 5), kind: .final,
              description: "Full time: Northbridge United 3-2 Castleford City. Marcus Bell's penalty settles a five-goal thriller at Riverside Park.",
              extra: stats(shots: (23, 15), onTarget: (9, 6), possession: 62, corners: (10, 6), fouls: (14, 19))
                .merging(["result": "home", "attendance": 24_817]) { first, _ in first }),
    ]
}
