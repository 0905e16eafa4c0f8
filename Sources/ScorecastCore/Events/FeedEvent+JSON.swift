import JSON

extension FeedEvent {
    /// The event in its wire shape (`Schema/event.schema.json`), for storing and replaying:
    /// ``FeedEventValidator`` reads it back to an equal event. `occurredAt` is written in UTC
    /// with milliseconds when it has a fraction.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = [
            "id": .string(id),
            "game": .string(game),
            "seq": .integer(seq),
            "occurredAt": .string(RFC3339.format(occurredAt, includeFraction: true)),
            "kind": .string(kind.rawValue),
        ]
        if !scoreboard.isEmpty { members["scoreboard"] = scoreboard.jsonValue }
        if let description { members["description"] = .string(description) }
        if let team { members["team"] = .string(team.rawValue) }
        if let player { members["player"] = .string(player) }
        if let alert { members["alert"] = .bool(alert) }
        if let shortName { members["shortName"] = .string(shortName) }
        if let ownGoal { members["ownGoal"] = .bool(ownGoal) }
        if let penalty { members["penalty"] = .bool(penalty) }
        if let card { members["card"] = .string(card.rawValue) }
        if let disallows { members["disallows"] = .string(disallows) }
        if !teams.isEmpty { members["teams"] = TeamIdentity.jsonValue(of: teams) }
        return .object(members)
    }
}

extension ScoreboardUpdate {
    /// The update in its wire shape: absent keys are kept, `null` clears.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = [:]
        if let home { members["home"] = .integer(home) }
        if let away { members["away"] = .integer(away) }
        switch period {
        case .keep: break
        case .set(let text): members["period"] = .string(text)
        case .clear: members["period"] = .null
        }
        switch clock {
        case .keep: break
        case .set(let text): members["clock"] = .string(text)
        case .clear: members["clock"] = .null
        }
        if !extra.isEmpty { members["extra"] = .object(extra) }
        if let clockRunning { members["clockRunning"] = .bool(clockRunning) }
        if let clockSeconds { members["clockSeconds"] = .double(clockSeconds) }
        switch addedTime {
        case .keep: break
        case .set(let minutes): members["addedTime"] = .integer(minutes)
        case .clear: members["addedTime"] = .null
        }
        switch shootout {
        case .keep: break
        case .set(let tally): members["shootout"] = ["home": .integer(tally.home), "away": .integer(tally.away)]
        case .clear: members["shootout"] = .null
        }
        return .object(members)
    }
}
