import APNsSimulator
import Foundation
import PhoneModel
import ScorecastActivity
import Testing

/// The phone model's rules, one by one, on pushes written out by hand (what APNs would deliver).
@Suite("Phone model: what ActivityKit does with what arrives")
struct PhoneTests {
    static let arrival = Date(timeIntervalSince1970: 1_764_453_600)

    /// A push body: `event` at `timestamp` showing `home`–`away`, with an optional alert and dates.
    static func push(
        _ timestamp: Int, event: String = "update", home: Int, away: Int = 0, alert: String? = nil, dismissal: Int? = nil,
        stale: Int? = nil, state: String? = nil
    ) -> [UInt8] {
        // updatedAt 786146820 is 2025-11-29 22:07:00 UTC in seconds since 2001-01-01.
        let content = state ?? #"{"version":2,"status":"live","homeScore":\#(home),"awayScore":\#(away),"period":"2H","scorers":[{"team":"home","player":"Saka","minute":67,"ownGoal":false,"penalty":false}],"cards":[],"extra":{},"updatedAt":786146820}"#
        var aps = #""timestamp":\#(timestamp),"event":"\#(event)","content-state":\#(content)"#
        if let alert { aps += #","alert":{"title":{"loc-key":"SCORE_PLAYER_MINUTE_TITLE","loc-args":["67'","\#(alert)","Arsenal"]},"body":{"loc-key":"SCORELINE_BODY","loc-args":["Arsenal","\#(home)","\#(away)","Chelsea"]},"sound":"default"}"# }
        if let dismissal { aps += #","dismissal-date":\#(dismissal)"# }
        if let stale { aps += #","stale-date":\#(stale)"# }
        return Array(#"{"aps":{\#(aps)}}"#.utf8)
    }

    @Test func aNewerUpdateIsShownDecodedWithTheActivitysOwnTypes() throws {
        var phone = Phone()
        #expect(phone.receive(Self.push(100, home: 1), at: Self.arrival) == .applied(timestamp: 100))
        let shown = try #require(phone.shown)
        #expect(shown.homeScore == 1 && shown.awayScore == 0 && shown.period == "2H" && shown.status == .live)
        #expect(shown.scorers == [ContentState.Scorer(team: .home, player: "Saka", minute: 67)])
        // A default decoder reads a date as seconds since 2001-01-01.
        #expect(shown.updatedAt == Date(timeIntervalSince1970: 1_764_454_020))
        #expect(phone.lastTimestamp == 100)
        #expect(phone.receive(Self.push(101, home: 2), at: Self.arrival) == .applied(timestamp: 101))
        #expect(phone.shown?.homeScore == 2)
    }

    @Test func anUpdateNotNewerThanTheLastAppliedIsDropped() {
        var phone = Phone()
        phone.receive(Self.push(100, home: 2), at: Self.arrival)
        #expect(phone.receive(Self.push(100, home: 3), at: Self.arrival) == .dropped(.notNewer(timestamp: 100, last: 100)))
        #expect(phone.receive(Self.push(99, home: 4), at: Self.arrival) == .dropped(.notNewer(timestamp: 99, last: 100)))
        #expect(phone.shown?.homeScore == 2)
        #expect(phone.lastTimestamp == 100)
    }

    @Test func anActivityStartedWithAStateDropsOlderUpdates() {
        var phone = Phone(startedWith: ContentState(status: .scheduled, homeScore: 0, awayScore: 0, updatedAt: Self.arrival), timestamp: 50)
        #expect(phone.receive(Self.push(49, home: 1), at: Self.arrival) == .dropped(.notNewer(timestamp: 49, last: 50)))
        #expect(phone.shown?.status == .scheduled)
    }

    @Test func everythingAfterTheEndIsDropped() {
        var phone = Phone()
        phone.receive(Self.push(100, event: "end", home: 3, away: 1), at: Self.arrival)
        #expect(phone.receive(Self.push(101, home: 4), at: Self.arrival) == .dropped(.afterEnd))
        #expect(phone.receive(Self.push(102, event: "end", home: 5), at: Self.arrival) == .dropped(.afterEnd))
        #expect(phone.receive(Self.push(103, home: 6, alert: "Late"), at: Self.arrival) == .dropped(.afterEnd))
        #expect(phone.shown?.homeScore == 3 && phone.shown?.awayScore == 1)
        #expect(phone.alerts.isEmpty)
        #expect(phone.outcomes == [.applied(timestamp: 100), .dropped(.afterEnd), .dropped(.afterEnd), .dropped(.afterEnd)])
    }

    @Test func anEndNotNewerIsDroppedLikeAnUpdate() {
        var phone = Phone()
        phone.receive(Self.push(100, home: 1), at: Self.arrival)
        #expect(phone.receive(Self.push(100, event: "end", home: 1), at: Self.arrival) == .dropped(.notNewer(timestamp: 100, last: 100)))
        #expect(phone.ending == nil)
    }

    @Test func anAlertIsShownOnceEvenWhenItsPushArrivesTwice() throws {
        var phone = Phone()
        let goal = Self.push(100, home: 1, alert: "Saka")
        phone.receive(goal, at: Self.arrival)
        // The server resends after a lost answer: same bytes, same timestamp.
        phone.receive(goal, at: Self.arrival.addingTimeInterval(5))
        #expect(phone.alerts.count == 1)
        let alert = try #require(phone.alerts.first)
        #expect(alert.title?.key == "SCORE_PLAYER_MINUTE_TITLE")
        #expect(alert.title?.arguments == ["67'", "Saka", "Arsenal"])
        #expect(alert.body?.arguments == ["Arsenal", "1", "0", "Chelsea"])
        #expect(alert.timestamp == 100 && alert.arrivedAt == Self.arrival)
    }

    @Test func theAlertOfADroppedUpdateIsNeverShown() {
        var phone = Phone()
        phone.receive(Self.push(100, home: 1), at: Self.arrival)
        phone.receive(Self.push(99, home: 1, alert: "Saka"), at: Self.arrival)
        #expect(phone.alerts.isEmpty)
    }

    @Test func anEndedActivityIsDismissedAtItsDismissalDate() {
        var phone = Phone()
        let arrived = 1_764_453_600
        phone.receive(Self.push(100, event: "end", home: 2, dismissal: arrived + 1800), at: Self.arrival)
        #expect(phone.ending == Phone.Ending(endedAt: Self.arrival, dismissedAt: Self.arrival.addingTimeInterval(1800)))
        #expect(phone.isShowing(at: Self.arrival))
        #expect(phone.isShowing(at: Self.arrival.addingTimeInterval(1799)))
        #expect(!phone.isShowing(at: Self.arrival.addingTimeInterval(1800)))
    }

    @Test func aDismissalDateInThePastRemovesTheActivityAtOnce() {
        var phone = Phone()
        phone.receive(Self.push(100, event: "end", home: 2, dismissal: 1_764_453_600 - 60), at: Self.arrival)
        #expect(phone.ending?.dismissedAt == Self.arrival)
        #expect(!phone.isShowing(at: Self.arrival))
    }

    @Test func withoutADismissalDateAnEndedActivityStaysFourHoursAndNoLonger() {
        var phone = Phone()
        phone.receive(Self.push(100, event: "end", home: 2), at: Self.arrival)
        #expect(phone.ending?.dismissedAt == Self.arrival.addingTimeInterval(4 * 3600))
        var late = Phone()
        late.receive(Self.push(100, event: "end", home: 2, dismissal: 1_764_453_600 + 5 * 3600), at: Self.arrival)
        #expect(late.ending?.dismissedAt == Self.arrival.addingTimeInterval(4 * 3600))
    }

    @Test func aContentStateThatDoesNotDecodeIsDroppedAndTheViewKept() {
        var phone = Phone()
        phone.receive(Self.push(100, home: 1), at: Self.arrival)
        let wrongType = #"{"version":2,"status":"live","homeScore":"2","awayScore":0,"scorers":[],"cards":[],"extra":{},"updatedAt":786146820}"#
        let unknownStatus = #"{"version":2,"status":"halftime","homeScore":2,"awayScore":0,"scorers":[],"cards":[],"extra":{},"updatedAt":786146820}"#
        for state in [wrongType, unknownStatus] {
            let outcome = phone.receive(Self.push(101, home: 2, alert: "Saka", state: state), at: Self.arrival)
            guard case .dropped(.undecodable) = outcome else {
                Issue.record("expected undecodable, got \(outcome)")
                continue
            }
        }
        #expect(phone.shown?.homeScore == 1)
        #expect(phone.alerts.isEmpty)
        #expect(phone.lastTimestamp == 100)
    }

    @Test func aBroadcastCannotStartAnActivity() {
        var phone = Phone()
        #expect(phone.receive(Self.push(100, event: "start", home: 0), at: Self.arrival) == .dropped(.startOnBroadcast))
        #expect(phone.shown == nil && !phone.isShowing(at: Self.arrival))
    }

    @Test func aPushWithoutATimestampIsMalformed() {
        var phone = Phone()
        let body = Array(#"{"aps":{"event":"update","content-state":{}}}"#.utf8)
        #expect(phone.receive(body, at: Self.arrival) == .dropped(.malformed("aps.timestamp is missing or not an integer")))
    }

    @Test func aRunningActivityTurnsStaleAtItsStaleDate() {
        var phone = Phone()
        phone.receive(Self.push(100, home: 1, stale: 1_764_454_500), at: Self.arrival)
        #expect(!phone.isStale(at: Date(timeIntervalSince1970: 1_764_454_499)))
        #expect(phone.isStale(at: Date(timeIntervalSince1970: 1_764_454_500)))
        phone.receive(Self.push(101, home: 1), at: Self.arrival)
        #expect(!phone.isStale(at: Date(timeIntervalSince1970: 1_764_460_000)), "a newer update without one clears it")
    }

    @Test func fromTheSimulatorsLogOnlyBroadcastsAcceptedForTheChannelArrive() throws {
        func request(_ sequence: Int, port: String = "send", channel: String = "ch-1", status: Int = 200, body: [UInt8]) throws -> SimulatorReceivedRequest {
            let record: [String: Any] = [
                "sequence": sequence, "time": 1_764_453_600 + Double(sequence), "port": port, "connection": 1, "stream": sequence * 2 + 1,
                "method": "POST", "path": "/4/broadcasts/apps/com.example.live",
                "headers": [["name": "apns-channel-id", "value": channel]], "body": String(decoding: body, as: UTF8.self),
                "bodyBytes": body.count, "outcome": "answered", "status": status, "responseHeaders": [], "delayMilliseconds": 0, "notes": [],
            ]
            return try JSONDecoder().decode(SimulatorReceivedRequest.self, from: JSONSerialization.data(withJSONObject: record))
        }
        let log = [
            try request(3, body: Self.push(102, home: 3)),
            try request(1, body: Self.push(100, home: 1, alert: "Saka")),
            try request(2, status: 503, body: Self.push(101, home: 2, alert: "Odegaard")),
            try request(4, channel: "ch-2", body: Self.push(103, home: 4)),
            try request(5, port: "management", body: Self.push(104, home: 5)),
        ]
        let phone = Phone(channelID: "ch-1", log: log)
        #expect(phone.outcomes == [.applied(timestamp: 100), .applied(timestamp: 102)])
        #expect(phone.shown?.homeScore == 3)
        #expect(phone.alerts.map { $0.title?.arguments[1] } == ["Saka"])
        #expect(phone.alerts.first?.arrivedAt == Date(timeIntervalSince1970: 1_764_453_601))
    }
}
