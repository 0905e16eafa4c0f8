import Foundation
import JSON
import ScorecastActivity

/// A Live Activity push as the phone reads it: the `aps` keys ActivityKit acts on, the
/// `content-state` decoded into the app's own ``ContentState`` with a default `JSONDecoder`.
struct Push {
    enum Event: String {
        case update, end, start
    }

    var timestamp: Int
    var event: Event
    var contentState: ContentState
    var staleDate: Int?
    var dismissalDate: Int?
    var alert: PushAlert?

    /// Reads `body`; throws ``PushError`` naming what the phone could not use.
    init(_ body: [UInt8]) throws(PushError) {
        let json: JSONValue
        do {
            json = try JSONParser().parse(body)
        } catch {
            throw .malformed("the body is not JSON: \(error)")
        }
        guard let aps = json["aps"], aps.objectValue != nil else { throw .malformed("no aps object") }
        guard let timestamp = aps["timestamp"]?.integerValue else { throw .malformed("aps.timestamp is missing or not an integer") }
        guard let name = aps["event"]?.stringValue, let event = Event(rawValue: name) else {
            throw .malformed("aps.event is \(aps["event"].map { "\($0)" } ?? "missing"), not update, end or start")
        }
        guard let state = aps["content-state"], state.objectValue != nil else { throw .malformed("no aps.content-state object") }
        do {
            // ActivityKit decodes with a default decoder: dates as seconds since 2001-01-01.
            contentState = try JSONDecoder().decode(ContentState.self, from: Data(try state.encoded()))
        } catch {
            throw .undecodable("\(error)")
        }
        self.timestamp = timestamp
        self.event = event
        staleDate = aps["stale-date"]?.integerValue
        dismissalDate = aps["dismissal-date"]?.integerValue
        alert = try aps["alert"].map { value throws(PushError) in try PushAlert(value) }
    }
}

/// Why a push could not be used.
enum PushError: Error {
    case malformed(String)
    case undecodable(String)

    var drop: Phone.Drop {
        switch self {
        case .malformed(let what): .malformed(what)
        case .undecodable(let what): .undecodable(what)
        }
    }
}

/// An `aps.alert`: a title and a body, each plain text or a `loc-key` with `loc-args` that the
/// phone looks up in the app's String Catalog.
public struct PushAlert: Sendable, Hashable {
    /// One text of an alert.
    public struct Text: Sendable, Hashable {
        /// The catalog key, when localized on the phone.
        public var key: String?
        /// The key's arguments.
        public var arguments: [String]
        /// The text itself, when sent as plain text.
        public var plain: String?
    }

    /// The title, if any.
    public var title: Text?
    /// The body, if any.
    public var body: Text?

    init(_ value: JSONValue) throws(PushError) {
        if let plain = value.stringValue {
            title = nil
            body = Text(key: nil, arguments: [], plain: plain)
            return
        }
        guard value.objectValue != nil else { throw .malformed("aps.alert is neither text nor an object") }
        title = try Self.text(value["title"], "title")
        body = try Self.text(value["body"], "body")
        guard title != nil || body != nil else { throw .malformed("aps.alert has neither title nor body") }
    }

    private static func text(_ value: JSONValue?, _ name: String) throws(PushError) -> Text? {
        guard let value else { return nil }
        if let plain = value.stringValue { return Text(key: nil, arguments: [], plain: plain) }
        guard let key = value["loc-key"]?.stringValue else { throw .malformed("aps.alert.\(name) is neither text nor a loc-key") }
        let arguments = value["loc-args"]?.arrayValue?.compactMap(\.stringValue) ?? []
        return Text(key: key, arguments: arguments, plain: nil)
    }
}
