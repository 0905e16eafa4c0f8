import Foundation
import JSON
import ScorecastActivity

extension GameState {
    /// The state as JSON for storage (`games.state`); ``init(jsonValue:)`` reads it back.
    /// Times are UNIX seconds as numbers so they survive exactly.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = [
            "status": .string(status.rawValue),
            "homeScore": .integer(homeScore),
            "awayScore": .integer(awayScore),
            "extra": .object(extra),
            "appliedSeq": .integer(appliedSeq),
            "scorers": Self.stored(scorers),
            "scorerIDs": .array(scorerIDs.map(JSONValue.string)),
            "cards": Self.stored(cards),
            "redCards": Self.stored(redCards),
        ]
        if let period { members["period"] = .string(period) }
        if let correction { members["correction"] = .string(correction) }
        if let clock { members["clock"] = .string(clock) }
        if let clockAnchor {
            members["clockAnchor"] = [
                "running": .bool(clockAnchor.running), "seconds": .double(clockAnchor.seconds),
                "at": .double(clockAnchor.at.timeIntervalSince1970),
            ]
        }
        if let addedMinutes { members["addedMinutes"] = .integer(addedMinutes) }
        if let shootout { members["shootout"] = Self.stored(shootout) }
        if let updatedAt { members["updatedAt"] = .double(updatedAt.timeIntervalSince1970) }
        if let shownAt { members["shownAt"] = .double(shownAt.timeIntervalSince1970) }
        members["shownSeq"] = .integer(shownSeq)
        members["shownExtra"] = .object(shownExtra)
        if !teams.isEmpty { members["teams"] = TeamIdentity.jsonValue(of: teams) }
        if let lastEvent {
            var event: [String: JSONValue] = [
                "id": .string(lastEvent.id),
                "kind": .string(lastEvent.kind.rawValue),
                "occurredAt": .double(lastEvent.occurredAt.timeIntervalSince1970),
            ]
            if let description = lastEvent.description { event["description"] = .string(description) }
            if let team = lastEvent.team { event["team"] = .string(team.rawValue) }
            if let player = lastEvent.player { event["player"] = .string(player) }
            if let minute = lastEvent.minute { event["minute"] = .integer(minute) }
            if let added = lastEvent.addedMinute { event["addedMinute"] = .integer(added) }
            if let card = lastEvent.card { event["card"] = .string(card.rawValue) }
            if let ownGoal = lastEvent.ownGoal { event["ownGoal"] = .bool(ownGoal) }
            if let penalty = lastEvent.penalty { event["penalty"] = .bool(penalty) }
            members["lastEvent"] = .object(event)
        }
        return .object(members)
    }

    /// Reads a state written by ``jsonValue`` (members added since are optional, so states
    /// stored by an older version still read).
    public init(jsonValue: JSONValue) throws(StoredValueError) {
        func fail(_ problem: String) -> StoredValueError {
            StoredValueError(subject: "game state", problem: problem)
        }
        func date(_ value: JSONValue?) -> Date? {
            value?.doubleValue.map { Date(timeIntervalSince1970: $0) }
        }
        guard let status = jsonValue["status"]?.stringValue.flatMap(GameStatus.init(rawValue:)) else { throw fail("status") }
        guard let home = jsonValue["homeScore"]?.integerValue else { throw fail("homeScore") }
        guard let away = jsonValue["awayScore"]?.integerValue else { throw fail("awayScore") }
        guard let seq = jsonValue["appliedSeq"]?.integerValue else { throw fail("appliedSeq") }
        guard let extra = jsonValue["extra"]?.objectValue else { throw fail("extra") }
        var lastEvent: LastEventSummary?
        if let event = jsonValue["lastEvent"] {
            guard let id = event["id"]?.stringValue,
                let kind = event["kind"]?.stringValue.flatMap(EventKind.init(rawValue:)),
                let occurredAt = date(event["occurredAt"])
            else { throw fail("lastEvent") }
            lastEvent = LastEventSummary(
                id: id, kind: kind, occurredAt: occurredAt,
                description: event["description"]?.stringValue,
                team: event["team"]?.stringValue.flatMap(TeamSide.init(rawValue:)),
                player: event["player"]?.stringValue,
                minute: event["minute"]?.integerValue, addedMinute: event["addedMinute"]?.integerValue,
                card: event["card"]?.stringValue.flatMap(CardColour.init(rawValue:)),
                ownGoal: event["ownGoal"]?.boolValue, penalty: event["penalty"]?.boolValue
            )
        }
        var clockAnchor: ClockAnchor?
        if let anchor = jsonValue["clockAnchor"] {
            guard let running = anchor["running"]?.boolValue, let seconds = anchor["seconds"]?.doubleValue, let at = date(anchor["at"])
            else { throw fail("clockAnchor") }
            clockAnchor = ClockAnchor(running: running, seconds: seconds, at: at)
        }
        self.init(
            status: status, homeScore: home, awayScore: away,
            period: jsonValue["period"]?.stringValue, clock: jsonValue["clock"]?.stringValue,
            clockAnchor: clockAnchor, addedMinutes: jsonValue["addedMinutes"]?.integerValue,
            extra: extra, lastEvent: lastEvent,
            scorers: try Self.read([ContentState.Scorer].self, jsonValue["scorers"], "scorers") ?? [],
            scorerIDs: try Self.read([String].self, jsonValue["scorerIDs"], "scorerIDs") ?? [],
            correction: jsonValue["correction"]?.stringValue,
            cards: try Self.read([ContentState.Card].self, jsonValue["cards"], "cards") ?? [],
            redCards: try Self.read(ContentState.TeamTally.self, jsonValue["redCards"], "redCards") ?? ContentState.TeamTally(home: 0, away: 0),
            shootout: try Self.read(ContentState.TeamTally.self, jsonValue["shootout"], "shootout"),
            updatedAt: date(jsonValue["updatedAt"]), shownAt: date(jsonValue["shownAt"]),
            shownSeq: jsonValue["shownSeq"]?.integerValue, shownExtra: jsonValue["shownExtra"]?.objectValue,
            appliedSeq: seq,
            teams: try Self.storedTeams(jsonValue["teams"])
        )
    }

    /// A contract value (no dates inside) as stored JSON, through its own `Codable`, built as a
    /// tree directly (no text written and parsed back).
    private static func stored(_ value: some Encodable) -> JSONValue {
        (try? JSONValueEncoder().encode(value)) ?? .null
    }

    /// The feed's team identities as ``jsonValue`` stored them (the validator normalised them).
    private static func storedTeams(_ json: JSONValue?) throws(StoredValueError) -> [TeamSide: TeamIdentity] {
        guard let json, !json.isNull else { return [:] }
        guard let members = json.objectValue else { throw StoredValueError(subject: "game state", problem: "teams") }
        var teams: [TeamSide: TeamIdentity] = [:]
        for side in TeamSide.allCases {
            guard let team = members[side.rawValue] else { continue }
            teams[side] = TeamIdentity(
                code: team["code"]?.stringValue, primaryColour: team["primaryColour"]?.stringValue,
                secondaryColour: team["secondaryColour"]?.stringValue)
        }
        return teams
    }

    private static func read<Value: Decodable>(_ type: Value.Type, _ json: JSONValue?, _ name: String) throws(StoredValueError) -> Value? {
        guard let json, !json.isNull else { return nil }
        guard let bytes = try? json.encoded(), let value = try? JSONCoding.decode(type, from: bytes, dates: .foundationDefault) else {
            throw StoredValueError(subject: "game state", problem: name)
        }
        return value
    }
}
