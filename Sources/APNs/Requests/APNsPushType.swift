/// The `apns-push-type` of a device push. Live Activities use ``liveActivity``; the others exist
/// so the same client can send ordinary notifications to a device token.
public struct APNsPushType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The header value, e.g. `liveactivity`.
    public let rawValue: String

    /// Wraps a header value; it is checked (letters, digits, `-`) before sending.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// `liveactivity`: push-to-start and Live Activity updates.
    public static let liveActivity = APNsPushType(rawValue: "liveactivity")
    /// `alert`: a visible notification.
    public static let alert = APNsPushType(rawValue: "alert")
    /// `background`: a silent content update.
    public static let background = APNsPushType(rawValue: "background")

    /// The header value.
    public var description: String { rawValue }
}
