import Foundation
import JSON
import ScorecastActivity
import ScorecastCore

extension ActivityFace {
    /// The face of a channel from `shown` (its last accepted body, accepted at `shownAt`) and
    /// `alert` (its last accepted body with an alert), its content-state read back through the
    /// app's `mapping` (keys it renamed) and its dates in the app's `dateEncoding`, a running
    /// clock read at `now`. `nil` when `shown` is not a Live Activity body with a content-state.
    /// Pure.
    package static func read(
        shown: [UInt8], shownAt: Date, alert: [UInt8]?, alertAt: Date?, mapping: ContentStateMapping = .identity,
        dateEncoding: ContentDateEncoding, now: Date
    ) -> ActivityFace? {
        guard let aps = (try? JSONParser().parse(shown))?["aps"], let sent = aps["content-state"],
            let state = mapping.unapply(to: sent).objectValue
        else { return nil }
        let scorers = (state["scorers"]?.arrayValue ?? []).compactMap(\.objectValue)
        func goals(_ side: String) -> [String] {
            scorers.filter { $0["team"]?.stringValue == side }.map { goal in
                var line = goal["player"]?.stringValue ?? "Goal"
                if let minute = goal["minute"]?.integerValue {
                    line += " " + ContentState.minuteText(minute, added: goal["addedMinute"]?.integerValue)
                }
                if goal["ownGoal"]?.boolValue == true { line += " (og)" }
                if goal["penalty"]?.boolValue == true { line += " (pen)" }
                return line
            }
        }
        let red = state["redCards"]?.objectValue
        return ActivityFace(
            acceptedAt: shownAt, event: aps["event"]?.stringValue ?? "update",
            status: state["status"]?.stringValue ?? "live",
            homeScore: state["homeScore"]?.integerValue ?? 0, awayScore: state["awayScore"]?.integerValue ?? 0,
            period: state["period"]?.stringValue,
            clock: state["clock"]?.objectValue.flatMap { clockText($0, dateEncoding: dateEncoding, now: now) },
            lastPlay: state["lastEvent"]?.objectValue.map(playText),
            homeScorers: goals("home"), awayScorers: goals("away"),
            redCards: red.map { [$0["home"]?.integerValue ?? 0, $0["away"]?.integerValue ?? 0] },
            alert: alert.flatMap { bytes in alertAt.flatMap { shownAlert(bytes, acceptedAt: $0) } })
    }

    /// The clock's label, or its reading (``ContentState/Clock/reading(at:)``) as `m:ss`.
    private static func clockText(_ clock: [String: JSONValue], dateEncoding: ContentDateEncoding, now: Date) -> String? {
        if let label = clock["label"]?.stringValue, !label.isEmpty { return label }
        guard let seconds = clock["seconds"]?.doubleValue else { return nil }
        let reading = ContentState.Clock(
            running: clock["running"]?.boolValue ?? false,
            direction: clock["direction"]?.stringValue.flatMap(ContentState.Clock.Direction.init(rawValue:)) ?? .up,
            seconds: seconds, periodStartedAt: clock["periodStartedAt"].flatMap { date($0, dateEncoding) }
        ).reading(at: now) ?? seconds
        let whole = Int(reading.rounded(.down))
        return "\(whole / 60):" + (whole % 60 < 10 ? "0" : "") + "\(whole % 60)"
    }

    /// A date of the content-state in the app's encoding.
    private static func date(_ value: JSONValue, _ encoding: ContentDateEncoding) -> Date? {
        switch encoding {
        case .referenceDate: value.doubleValue.map { Date(timeIntervalSinceReferenceDate: $0) }
        case .unixSeconds: value.doubleValue.map { Date(timeIntervalSince1970: $0) }
        case .iso8601: value.stringValue.flatMap(RFC3339.parse)
        }
    }

    /// "67' Saka · Saka curls it in": the minute, the player and the feed's text (or the kind).
    private static func playText(_ play: [String: JSONValue]) -> String {
        var head: [String] = []
        if let minute = play["minute"]?.integerValue { head.append(ContentState.minuteText(minute, added: play["addedMinute"]?.integerValue)) }
        if let player = play["player"]?.stringValue { head.append(player) }
        let what = play["text"]?.stringValue ?? play["kind"]?.stringValue ?? ""
        return [head.joined(separator: " "), what].filter { !$0.isEmpty }.joined(separator: " · ")
    }

    /// The alert of `body`, its texts in English; `nil` when it carries none.
    private static func shownAlert(_ body: [UInt8], acceptedAt: Date) -> ShownAlert? {
        guard let alert = (try? JSONParser().parse(body))?["aps"]?["alert"] else { return nil }
        func text(_ value: JSONValue?) -> String? {
            guard let value else { return nil }
            if let plain = value.stringValue { return plain }
            guard let key = value["loc-key"]?.stringValue else { return nil }
            return AlertCatalog.englishText(key: key, arguments: (value["loc-args"]?.arrayValue ?? []).compactMap(\.stringValue))
        }
        if let plain = alert.stringValue { return ShownAlert(acceptedAt: acceptedAt, title: plain, body: nil, sound: nil) }
        return ShownAlert(acceptedAt: acceptedAt, title: text(alert["title"]), body: text(alert["body"]), sound: alert["sound"]?.stringValue)
    }
}
