import Foundation
import JSON

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
        ]
        if let period { members["period"] = .string(period) }
        if let clock { members["clock"] = .string(clock) }
        if let lastEvent {
            var event: [String: JSONValue] = [
                "id": .string(lastEvent.id),
                "kind": .string(lastEvent.kind.rawValue),
                "occurredAt": .double(lastEvent.occurredAt.timeIntervalSince1970),
            ]
            if let description = lastEvent.description { event["description"] = .string(description) }
            if let team = lastEvent.team { event["team"] = .string(team.rawValue) }
            if let player = lastEvent.player { event["player"] = .string(player) }
            members["lastEvent"] = .object(event)
        }
        return .object(members)
    }

    /// Reads a state written by ``jsonValue``.
    public init(jsonValue: JSONValue) throws(StoredValueError) {
        func fail(_ problem: String) -> StoredValueError {
            StoredValueError(subject: "game state", problem: problem)
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
                let seconds = event["occurredAt"]?.doubleValue
            else { throw fail("lastEvent") }
            lastEvent = LastEventSummary(
                id: id, kind: kind, occurredAt: Date(timeIntervalSince1970: seconds),
                description: event["description"]?.stringValue,
                team: event["team"]?.stringValue.flatMap(TeamSide.init(rawValue:)),
                player: event["player"]?.stringValue
            )
        }
        self.init(
            status: status, homeScore: home, awayScore: away,
            period: jsonValue["period"]?.stringValue, clock: jsonValue["clock"]?.stringValue,
            extra: extra, lastEvent: lastEvent, appliedSeq: seq
        )
    }
}
