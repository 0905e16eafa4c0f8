import JSON

/// A title or body of a Live Activity `alert`: plain text, or a localization key with arguments
/// that the device resolves in the app's `Localizable.strings` (apns.md §4).
public enum AlertText: Sendable, Hashable {
    /// Shown as is.
    case plain(String)
    /// `{"loc-key": key, "loc-args": arguments}`; if the app has no such key the device shows the
    /// key itself with the arguments substituted, so keys may double as a format string.
    case localized(key: String, arguments: [String])

    /// The JSON form inside `alert`.
    public var jsonValue: JSONValue {
        switch self {
        case .plain(let text):
            .string(text)
        case .localized(let key, let arguments):
            .object(["loc-key": .string(key), "loc-args": .array(arguments.map { .string($0) })])
        }
    }
}

/// The `alert` of a Live Activity push: lights the screen and, with a sound, plays it.
public struct LiveActivityAlert: Sendable, Hashable {
    /// The headline.
    public var title: AlertText?
    /// The text under it.
    public var body: AlertText?
    /// A sound name from the app bundle, or `default`.
    public var sound: String?

    /// Creates an alert; at least one of `title` and `body` must be given for it to encode.
    public init(title: AlertText? = nil, body: AlertText? = nil, sound: String? = nil) {
        self.title = title
        self.body = body
        self.sound = sound
    }

    /// The JSON form of `aps.alert`.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = [:]
        if let title { members["title"] = title.jsonValue }
        if let body { members["body"] = body.jsonValue }
        if let sound { members["sound"] = .string(sound) }
        return .object(members)
    }
}
