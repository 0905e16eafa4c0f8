/// How an activity started by push-to-start gets its updates (apns.md §7).
public enum ActivityInput: Sendable, Hashable {
    /// `input-push-channel`: it listens to this broadcast channel (iOS 18+).
    case channel(id: String, light: Bool)
    /// `input-push-token: 1`: it asks for a push token of its own, which the app registers.
    case token

    /// Picks the input for a device: the light channel when its user turned frequent updates off
    /// and the game has one, else the standard channel; the activity's own token when the
    /// device cannot subscribe (before iOS 18) or the game has no channel for its app.
    public static func choose(
        supportsChannels: Bool, frequentUpdates: Bool, standardChannel: String?, lightChannel: String?
    ) -> ActivityInput {
        guard supportsChannels else { return .token }
        if !frequentUpdates, let lightChannel { return .channel(id: lightChannel, light: true) }
        if let standardChannel { return .channel(id: standardChannel, light: false) }
        if let lightChannel { return .channel(id: lightChannel, light: true) }
        return .token
    }

    /// `channel`, `light-channel` or `token`: the `activity_starts.input` column.
    public var name: String {
        switch self {
        case .channel(_, let light): light ? "light-channel" : "channel"
        case .token: "token"
        }
    }
}
