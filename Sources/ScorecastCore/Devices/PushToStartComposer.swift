import APNsCore
import Foundation
import JSON

/// Composes the push-to-start payload of one game for one device (apns.md §7): `event: start`,
/// `attributes-type` and `attributes`, the game's current `content-state` rendered exactly as
/// the app's channel updates are, an `alert`, and the activity's input (a channel or its own
/// token). Checked for a device push (4,096 bytes; attributes + content-state within 4 KB).
public struct PushToStartComposer: Sendable {
    /// The app's rendering settings.
    public var settings: RenderSettings
    /// `attributes-type`: the app's `ActivityAttributes` type name.
    public var attributesType: String

    /// Creates a composer for one app.
    public init(settings: RenderSettings, attributesType: String = "GameAttributes") {
        self.settings = settings
        self.attributesType = attributesType
    }

    /// The payload for `input`, showing `state` (`nil`: the game has no events yet) at `now`.
    public func compose(
        game: GameInfo, state: GameState?, attributes: JSONValue, input: ActivityInput, now: Date
    ) throws(LiveActivityPayloadError) -> LiveActivityPayload {
        let current = state ?? .initial
        let snapshot = try LiveActivityRenderer(settings: settings)
            .renderSnapshot(state: current, game: game, now: now, channelLastTimestamp: nil)
        var payload = snapshot.payload
        payload.event = .start
        payload.dismissalDate = nil
        payload.attributesType = attributesType
        payload.attributes = attributes
        payload.alert = AlertCatalog.alert(
            for: .start,
            values: [.home: game.homeName, .away: game.awayName,
                     .homeScore: String(current.homeScore), .awayScore: String(current.awayScore)],
            style: settings.alertStyle, sound: settings.alertSound)
        switch input {
        case .channel(let id, _): payload.inputPushChannel = id
        case .token: payload.inputPushToken = true
        }
        _ = try payload.encode(for: .device)
        return payload
    }
}
