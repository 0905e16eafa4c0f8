import Foundation
import JSON
import ScorecastActivity

/// Turns an untrusted request body into validated ``FeedEvent``s, or refuses it whole with
/// every field problem named by path.
///
/// The body is one event object, or `{"events": [ … ]}` with 1 … ``FeedEventLimits/maximumBatchSize``
/// events. Unknown keys inside an event (at its top level, in `scoreboard`, `shootout` and `teams`) are
/// ignored and reported in ``ValidatedEvents/ignoredFields``, so a feed that adds a field of its
/// own is not refused; beside `"events"` in a batch they are refused, since there they mean a
/// malformed batch rather than a richer event. A batch with any invalid event is refused
/// entirely (nothing is ever half-accepted), and one id appearing twice in a batch is refused.
/// The rules are exactly those of `Schema/event.schema.json`, plus two the schema cannot state:
/// `occurredAt` must not be before 1970 or more than ``FeedEventLimits/maximumFutureSkew``
/// seconds ahead of `now`.
public struct FeedEventValidator: Sendable {
    /// The bounds applied.
    public var limits: FeedEventLimits
    /// At most this many errors are reported; the rest are dropped.
    public var maximumErrors: Int

    /// Creates a validator.
    public init(limits: FeedEventLimits = FeedEventLimits(), maximumErrors: Int = 50) {
        self.limits = limits
        self.maximumErrors = maximumErrors
    }

    /// Parses `body` as JSON, then validates it like ``events(from:now:)``. A JSON syntax error
    /// is reported at the empty path with its byte offset.
    public func events(fromBody body: some Collection<UInt8>, now: Date) throws(EventValidationError) -> [FeedEvent] {
        let json: JSONValue
        do {
            json = try JSONParser().parse(body)
        } catch {
            throw EventValidationError(errors: [FieldError(path: "", message: error.description)])
        }
        return try events(from: json, now: now)
    }

    /// Validates one event or a batch, in input order.
    public func events(from json: JSONValue, now: Date) throws(EventValidationError) -> [FeedEvent] {
        try validate(json, now: now).events
    }

    /// Validates one event or a batch, in input order, and says which unknown fields were
    /// passed over.
    public func validate(_ json: JSONValue, now: Date) throws(EventValidationError) -> ValidatedEvents {
        var check = FieldChecker(maximumErrors: maximumErrors)
        guard let members = json.objectValue else {
            throw EventValidationError(errors: [FieldError(path: "", message: "must be a JSON object (one event, or {\"events\": [...]})")])
        }
        var events: [FeedEvent] = []
        if let batch = members["events"] {
            for key in members.keys where key != "events" {
                check.fail(FieldChecker.join("", key), "is not a known field (a batch has only \"events\")")
            }
            guard let elements = batch.arrayValue else {
                throw EventValidationError(errors: [FieldError(path: "events", message: "must be an array, got \(batch.typeName)")])
            }
            guard (1...max(1, limits.maximumBatchSize)).contains(elements.count) else {
                throw EventValidationError(errors: [
                    FieldError(path: "events", message: "must hold 1 to \(limits.maximumBatchSize) events, got \(elements.count)")
                ])
            }
            var firstIndexByID: [String: Int] = [:]
            for (index, element) in elements.enumerated() {
                let path = "events[\(index)]"
                guard let event = validateEvent(element, path: path, now: now, check: &check) else { continue }
                if let first = firstIndexByID[event.id] {
                    check.fail(FieldChecker.join(path, "id"), "repeats the id of events[\(first)]")
                } else {
                    firstIndexByID[event.id] = index
                    events.append(event)
                }
            }
        } else if let event = validateEvent(json, path: "", now: now, check: &check) {
            events.append(event)
        }
        if !check.errors.isEmpty { throw EventValidationError(errors: check.errors) }
        return ValidatedEvents(events: events, ignoredFields: check.ignored, ignoredFieldCount: check.ignoredCount)
    }

    /// Validates exactly one event object (no batch shape).
    public func event(from json: JSONValue, now: Date) throws(EventValidationError) -> FeedEvent {
        var check = FieldChecker(maximumErrors: maximumErrors)
        guard let event = validateEvent(json, path: "", now: now, check: &check), check.errors.isEmpty else {
            throw EventValidationError(errors: check.errors)
        }
        return event
    }

    static let topLevelKeys: Set<String> = [
        "id", "game", "seq", "occurredAt", "kind", "scoreboard", "description", "team", "player", "alert",
        "shortName", "ownGoal", "penalty", "card", "disallows", "teams",
    ]
    static let teamKeys: Set<String> = ["code", "primaryColour", "secondaryColour"]
    static let scoreboardKeys: Set<String> = [
        "home", "away", "period", "clock", "extra", "clockRunning", "clockSeconds", "addedTime", "shootout",
    ]

    private func validateEvent(_ json: JSONValue, path: String, now: Date, check: inout FieldChecker) -> FeedEvent? {
        guard let members = json.objectValue else {
            check.fail(path, "must be an object, got \(json.typeName)")
            return nil
        }
        let errorsBefore = check.errors.count
        check.ignoreUnknownKeys(members, known: Self.topLevelKeys, path: path)

        let id = check.text(
            members["id"], path: FieldChecker.join(path, "id"), required: true,
            length: 1...FeedEventLimits.idMaximumLength,
            allowed: { (0x21...0x7E).contains($0.value) },
            allowedDescription: "visible ASCII characters (no spaces or control characters)"
        )
        let game = check.text(
            members["game"], path: FieldChecker.join(path, "game"), required: true,
            length: 1...FeedEventLimits.gameMaximumLength,
            allowed: FieldChecker.isGameIDScalar,
            allowedDescription: "A-Z a-z 0-9 . _ : -"
        )
        let seq = check.integer(
            members["seq"], path: FieldChecker.join(path, "seq"), required: true,
            range: 1...FeedEventLimits.seqMaximum
        )
        let occurredAt = checkTime(members["occurredAt"], path: FieldChecker.join(path, "occurredAt"), now: now, check: &check)
        let kind = check.enumeration(members["kind"], path: FieldChecker.join(path, "kind"), required: true, as: EventKind.self)
        let scoreboard = checkScoreboard(members["scoreboard"], path: FieldChecker.join(path, "scoreboard"), check: &check)
        let description = check.text(
            members["description"], path: FieldChecker.join(path, "description"), required: false,
            length: 1...FeedEventLimits.descriptionMaximumLength,
            allowed: FieldChecker.isPrintable, allowedDescription: "printable characters (no control characters)"
        )
        let team = check.enumeration(members["team"], path: FieldChecker.join(path, "team"), required: false, as: TeamSide.self)
        let player = check.text(
            members["player"], path: FieldChecker.join(path, "player"), required: false,
            length: 1...FeedEventLimits.playerMaximumLength,
            allowed: FieldChecker.isPrintable, allowedDescription: "printable characters (no control characters)"
        )
        let alert = check.boolean(members["alert"], path: FieldChecker.join(path, "alert"))
        let shortName = check.text(
            members["shortName"], path: FieldChecker.join(path, "shortName"), required: false,
            length: 1...FeedEventLimits.shortNameMaximumLength,
            allowed: FieldChecker.isPrintable, allowedDescription: "printable characters (no control characters)"
        )
        let ownGoal = check.boolean(members["ownGoal"], path: FieldChecker.join(path, "ownGoal"))
        let penalty = check.boolean(members["penalty"], path: FieldChecker.join(path, "penalty"))
        let card = check.enumeration(members["card"], path: FieldChecker.join(path, "card"), required: false, as: CardColour.self)
        let disallows = check.text(
            members["disallows"], path: FieldChecker.join(path, "disallows"), required: false,
            length: 1...FeedEventLimits.idMaximumLength,
            allowed: { (0x21...0x7E).contains($0.value) },
            allowedDescription: "visible ASCII characters (no spaces or control characters)"
        )
        let teams = checkTeams(members["teams"], path: FieldChecker.join(path, "teams"), check: &check)
        if let kind {
            if kind != .videoReview, members["disallows"] != nil {
                check.fail(FieldChecker.join(path, "disallows"), "only applies to kind var, not \(kind)")
            }
            if kind != .score {
                for key in ["ownGoal", "penalty"] where members[key] != nil {
                    check.fail(FieldChecker.join(path, key), "only applies to kind score, not \(kind)")
                }
            }
            if kind != .card, members["card"] != nil {
                check.fail(FieldChecker.join(path, "card"), "only applies to kind card, not \(kind)")
            }
        }

        guard check.errors.count == errorsBefore, let id, let game, let seq, let occurredAt, let kind, let scoreboard else {
            return nil
        }
        return FeedEvent(
            id: id, game: game, seq: seq, occurredAt: occurredAt, kind: kind, scoreboard: scoreboard,
            description: description, team: team, player: player, alert: alert,
            shortName: shortName, ownGoal: ownGoal, penalty: penalty, card: card, disallows: disallows, teams: teams
        )
    }

    /// `{"home": {"code": "ARS", "primaryColour": "#EF0107", "secondaryColour": "#FFFFFF"}, "away": …}`,
    /// every part optional; codes and colours by the registration's rules
    /// (`GameAttributes.Team.validCode`, `validColour`), normalised to upper case.
    private func checkTeams(_ value: JSONValue?, path: String, check: inout FieldChecker) -> [TeamSide: TeamIdentity] {
        guard let value else { return [:] }
        guard let members = value.objectValue else {
            check.fail(path, "must be an object {\"home\": {…}, \"away\": {…}}, got \(value.typeName)")
            return [:]
        }
        check.ignoreUnknownKeys(members, known: Set(TeamSide.allCases.map(\.rawValue)), path: path)
        var teams: [TeamSide: TeamIdentity] = [:]
        for side in TeamSide.allCases {
            guard let team = members[side.rawValue] else { continue }
            let teamPath = FieldChecker.join(path, side.rawValue)
            guard let parts = team.objectValue else {
                check.fail(teamPath, "must be an object with code, primaryColour and secondaryColour, got \(team.typeName)")
                continue
            }
            check.ignoreUnknownKeys(parts, known: Self.teamKeys, path: teamPath)
            var identity = TeamIdentity()
            identity.code = checkTeamPart(
                parts["code"], path: FieldChecker.join(teamPath, "code"), check: &check,
                rule: "3 letters or digits (ARS, S04)", valid: GameAttributes.Team.validCode)
            identity.primaryColour = checkTeamPart(
                parts["primaryColour"], path: FieldChecker.join(teamPath, "primaryColour"), check: &check,
                rule: "a colour #RRGGBB (#EF0107)", valid: GameAttributes.Team.validColour)
            identity.secondaryColour = checkTeamPart(
                parts["secondaryColour"], path: FieldChecker.join(teamPath, "secondaryColour"), check: &check,
                rule: "a colour #RRGGBB (#FFFFFF)", valid: GameAttributes.Team.validColour)
            if !identity.isEmpty { teams[side] = identity }
        }
        return teams
    }

    /// One part of a team's identity: `nil` when absent; the normalised value, or a failure
    /// that names the rule and shows the value (cut short).
    private func checkTeamPart(
        _ value: JSONValue?, path: String, check: inout FieldChecker, rule: String, valid: (String) -> String?
    ) -> String? {
        guard let value else { return nil }
        guard let text = value.stringValue else {
            check.fail(path, "must be \(rule), got \(value.typeName)")
            return nil
        }
        guard let normalised = valid(text) else {
            let shown = String(String.UnicodeScalarView(text.unicodeScalars.prefix(16).map { FieldChecker.isPrintable($0) && $0 != "\"" ? $0 : "?" }))
            check.fail(path, "must be \(rule), got \"\(shown)\"")
            return nil
        }
        return normalised
    }

    private func checkTime(_ value: JSONValue?, path: String, now: Date, check: inout FieldChecker) -> Date? {
        let example = "an RFC 3339 date-time with a zone, such as 2025-11-29T21:45:00Z"
        guard let value else {
            check.fail(path, "is required")
            return nil
        }
        guard let text = value.stringValue else {
            check.fail(path, "must be \(example), got \(value.typeName)")
            return nil
        }
        guard let date = RFC3339.parse(text) else {
            check.fail(path, "must be \(example)")
            return nil
        }
        guard date.timeIntervalSince1970 >= 0 else {
            check.fail(path, "must not be before 1970-01-01T00:00:00Z")
            return nil
        }
        guard date.timeIntervalSince(now) <= limits.maximumFutureSkew else {
            check.fail(path, "is more than \(Int(limits.maximumFutureSkew)) seconds ahead of the server's clock")
            return nil
        }
        return date
    }

    private func checkScoreboard(_ value: JSONValue?, path: String, check: inout FieldChecker) -> ScoreboardUpdate? {
        guard let value else { return ScoreboardUpdate() }
        guard let members = value.objectValue else {
            check.fail(path, "must be an object, got \(value.typeName)")
            return nil
        }
        let errorsBefore = check.errors.count
        check.ignoreUnknownKeys(members, known: Self.scoreboardKeys, path: path)
        let scoreRange = 0...FeedEventLimits.scoreMaximum
        let home = check.integer(members["home"], path: FieldChecker.join(path, "home"), required: false, range: scoreRange)
        let away = check.integer(members["away"], path: FieldChecker.join(path, "away"), required: false, range: scoreRange)
        let period = checkLabel(members["period"], path: FieldChecker.join(path, "period"), check: &check)
        let clock = checkLabel(members["clock"], path: FieldChecker.join(path, "clock"), check: &check)
        let extra = checkExtra(members["extra"], path: FieldChecker.join(path, "extra"), check: &check)
        let clockRunning = check.boolean(members["clockRunning"], path: FieldChecker.join(path, "clockRunning"))
        var clockSeconds: Double?
        if let value = members["clockSeconds"] {
            let seconds = value.doubleValue ?? value.integerValue.map(Double.init)
            if let seconds, seconds.isFinite, (0...FeedEventLimits.clockSecondsMaximum).contains(seconds) {
                clockSeconds = seconds
            } else {
                check.fail(FieldChecker.join(path, "clockSeconds"), "must be a number of seconds from 0 to \(Int(FeedEventLimits.clockSecondsMaximum))")
            }
        }
        var addedTime: FieldUpdate<Int> = .keep
        if let value = members["addedTime"] {
            if value.isNull {
                addedTime = .clear
            } else if let minutes = check.integer(value, path: FieldChecker.join(path, "addedTime"), required: true, range: 0...FeedEventLimits.addedTimeMaximum) {
                addedTime = .set(minutes)
            }
        }
        let shootout = checkShootout(members["shootout"], path: FieldChecker.join(path, "shootout"), check: &check)
        guard check.errors.count == errorsBefore else { return nil }
        return ScoreboardUpdate(
            home: home, away: away, period: period, clock: clock, extra: extra,
            clockRunning: clockRunning, clockSeconds: clockSeconds, addedTime: addedTime, shootout: shootout)
    }

    private func checkShootout(_ value: JSONValue?, path: String, check: inout FieldChecker) -> FieldUpdate<ContentState.TeamTally> {
        guard let value else { return .keep }
        if value.isNull { return .clear }
        guard let members = value.objectValue else {
            check.fail(path, "must be an object {\"home\": n, \"away\": n} or null, got \(value.typeName)")
            return .keep
        }
        check.ignoreUnknownKeys(members, known: ["home", "away"], path: path)
        let range = 0...FeedEventLimits.shootoutMaximum
        let home = check.integer(members["home"], path: FieldChecker.join(path, "home"), required: true, range: range)
        let away = check.integer(members["away"], path: FieldChecker.join(path, "away"), required: true, range: range)
        guard let home, let away else { return .keep }
        return .set(ContentState.TeamTally(home: home, away: away))
    }

    private func checkLabel(_ value: JSONValue?, path: String, check: inout FieldChecker) -> FieldUpdate<String> {
        guard let value else { return .keep }
        if value.isNull { return .clear }
        guard let text = check.text(
            value, path: path, required: true, length: 1...FeedEventLimits.labelMaximumLength,
            allowed: FieldChecker.isPrintable, allowedDescription: "printable characters (no control characters)",
            nullable: true
        ) else { return .keep }
        return .set(text)
    }

    private func checkExtra(_ value: JSONValue?, path: String, check: inout FieldChecker) -> [String: JSONValue] {
        guard let value else { return [:] }
        guard let members = value.objectValue else {
            check.fail(path, "must be an object, got \(value.typeName)")
            return [:]
        }
        if members.count > FeedEventLimits.extraMaximumEntries {
            check.fail(path, "must have at most \(FeedEventLimits.extraMaximumEntries) entries, got \(members.count)")
            return [:]
        }
        var extra: [String: JSONValue] = [:]
        for key in JSONValue.sortedKeys(members) {
            let entryPath = FieldChecker.join(path, key)
            guard FieldChecker.isExtraKey(key) else {
                check.fail(entryPath, "is not a valid name: a letter, then up to \(FeedEventLimits.extraKeyMaximumLength - 1) letters, digits or _")
                continue
            }
            let entry = members[key] ?? .null
            switch entry {
            case .string:
                if let text = check.text(
                    entry, path: entryPath, required: true, length: 1...FeedEventLimits.extraStringMaximumLength,
                    allowed: FieldChecker.isPrintable, allowedDescription: "printable characters (no control characters)"
                ) {
                    extra[key] = .string(text)
                }
            case .integer, .double, .bool, .null:
                extra[key] = entry
            case .array, .object:
                check.fail(entryPath, "must be a string, number, boolean or null, got \(entry.typeName)")
            }
        }
        return extra
    }
}

/// Valid events, and the unknown fields passed over on the way.
public struct ValidatedEvents: Sendable, Hashable {
    /// The events, in input order.
    public var events: [FeedEvent]
    /// Paths of unknown fields ignored (`events[1].venue`, `scoreboard.possessionHome`), the
    /// first few; ``ignoredFieldCount`` counts them all.
    public var ignoredFields: [String]
    /// How many unknown fields were ignored.
    public var ignoredFieldCount: Int
}
