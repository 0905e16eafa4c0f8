/// A device-side APNs token (push-to-start or an activity's own push token) as scorecast keeps
/// it: lowercase hex, 64 to 512 digits (32–256 bytes; Apple documents no fixed length).
public enum DeviceToken {
    /// The fewest hex digits accepted.
    public static let minimumLength = 64
    /// The most hex digits accepted.
    public static let maximumLength = 512

    /// The token in lowercase, or `nil` when it is not 64–512 hex digits of whole bytes.
    public static func normalize(_ text: String) -> String? {
        let count = text.utf8.count
        guard (minimumLength...maximumLength).contains(count), count % 2 == 0 else { return nil }
        guard text.utf8.allSatisfy({ (48...57).contains($0) || (65...70).contains($0) || (97...102).contains($0) }) else { return nil }
        return text.lowercased()
    }
}
