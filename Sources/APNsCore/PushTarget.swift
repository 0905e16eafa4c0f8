/// Where a Live Activity payload goes, which decides what it may contain and how large it may be.
public enum PushTarget: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `POST /4/broadcasts/apps/<bundleId>`: `update` or `end` only, at most 5,120 bytes.
    case broadcast
    /// `POST /3/device/<token>` (push-to-start and per-device updates): at most 4,096 bytes.
    case device

    /// The largest body APNs accepts for this target, in bytes (apns.md §3, §7).
    public var payloadLimit: Int {
        switch self {
        case .broadcast: 5_120
        case .device: 4_096
        }
    }

    /// The text shown in logs and error messages.
    public var description: String { rawValue }
}
