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
        return .object(members)
    }
}
