import Foundation
import JSON

/// The default `content-state` of scorecast's Live Activities, and the Swift struct an iOS
/// developer pastes into the app to decode it.
///
/// The JSON (keys sorted, dates in the default ``ContentDateEncoding/referenceDate``):
/// ```json
/// {"awayScore": 1, "clock": "67'", "extra": {"corners": "5"}, "homeScore": 2,
///  "lastEvent": {"kind": "score", "player": "Saka", "team": "home", "text": "Saka curls it in"},
///  "period": "2H", "status": "live", "updatedAt": 786146700}
/// ```
/// `period`, `clock`, `lastEvent` and the optional members of `lastEvent` are left out when
/// unknown; `extra` is always present (possibly empty) with every value as text.
///
/// The matching Swift (``swiftSource``, shown verbatim in the README), decoded by ActivityKit with
/// a default `JSONDecoder`:
/// ```swift
/// struct ContentState: Codable, Hashable {
///     var status: String
///     var homeScore: Int
///     var awayScore: Int
///     var period: String?
///     var clock: String?
///     var lastEvent: LastEvent?
///     var extra: [String: String]
///     var updatedAt: Date
///
///     struct LastEvent: Codable, Hashable {
///         var kind: String
///         var text: String?
///         var team: String?
///         var player: String?
///     }
/// }
/// ```
/// Apps with another shape use a per-app ``ContentStateMapping`` and ``ContentDateEncoding``.
public enum ContentState {
    /// The Swift declaration matching the default shape, to paste inside the app's
    /// `ActivityAttributes` type. A test decodes rendered output with exactly this struct.
    public static let swiftSource = """
        /// The live state of a game, sent by scorecast in every Live Activity update.
        struct ContentState: Codable, Hashable {
            /// "scheduled", "live", "suspended", "final" or "cancelled".
            var status: String
            var homeScore: Int
            var awayScore: Int
            /// The feed's period label ("2H", "Q3", "Top 7th"), when known.
            var period: String?
            /// The feed's clock label ("67'", "04:12"), when known.
            var clock: String?
            /// The last play, when there was one.
            var lastEvent: LastEvent?
            /// Sport-specific values as text, e.g. ["corners": "5"].
            var extra: [String: String]
            /// When the last play happened.
            var updatedAt: Date

            struct LastEvent: Codable, Hashable {
                /// The feed's event kind: "score", "card", "period", …
                var kind: String
                /// The feed's description of the play.
                var text: String?
                /// "home" or "away".
                var team: String?
                var player: String?
            }
        }
        """

    /// Every key of the default shape, nested ones as `lastEvent.player`: the paths a
    /// ``ContentStateMapping`` may name.
    public static let keyPaths: [String] = [
        "status", "homeScore", "awayScore", "period", "clock", "lastEvent", "lastEvent.kind",
        "lastEvent.text", "lastEvent.team", "lastEvent.player", "extra", "updatedAt",
    ]

    /// The default-shape content-state of `state`. `updatedAt` is the last event's time, or
    /// `fallbackTime` for a game without events.
    public static func render(_ state: GameState, dateEncoding: ContentDateEncoding, fallbackTime: Date) -> JSONValue {
        var members: [String: JSONValue] = [
            "status": .string(state.status.rawValue),
            "homeScore": .integer(state.homeScore),
            "awayScore": .integer(state.awayScore),
            "extra": .object(state.extra.mapValues { .string(text(of: $0)) }),
            "updatedAt": dateEncoding.jsonValue(for: state.updatedAt ?? fallbackTime),
        ]
        if let period = state.period { members["period"] = .string(period) }
        if let clock = state.clock { members["clock"] = .string(clock) }
        if let last = state.lastEvent {
            var event: [String: JSONValue] = ["kind": .string(last.kind.rawValue)]
            if let text = last.description { event["text"] = .string(text) }
            if let team = last.team { event["team"] = .string(team.rawValue) }
            if let player = last.player { event["player"] = .string(player) }
            members["lastEvent"] = .object(event)
        }
        return .object(members)
    }

    /// An `extra` value as text: strings as is, numbers and booleans as their JSON text.
    static func text(of value: JSONValue) -> String {
        switch value {
        case .string(let text): return text
        case .bool(let flag): return flag ? "true" : "false"
        case .integer(let number): return String(number)
        case .double(let number): return (try? JSONValue.double(number).encodedString()) ?? String(number)
        case .null, .array, .object: return (try? value.encodedString()) ?? ""
        }
    }
}
