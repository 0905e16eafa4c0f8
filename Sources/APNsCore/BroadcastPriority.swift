/// The `apns-priority` of a Live Activity push (apns.md §3).
public enum BroadcastPriority: Int, Sendable, Hashable, CaseIterable, Comparable, CustomStringConvertible {
    /// 1: lowest; documented for notifications, unconfirmed for Live Activities.
    case low = 1
    /// 5: opportunistic; does not draw on the device's hourly budget but may be delayed or batched.
    case opportunistic = 5
    /// 10: immediate; costs budget.
    case immediate = 10

    /// The value of the `apns-priority` header.
    public var headerValue: String { String(rawValue) }

    /// The text shown in logs and error messages.
    public var description: String { headerValue }

    /// Orders by header value: 1 < 5 < 10.
    public static func < (lhs: BroadcastPriority, rhs: BroadcastPriority) -> Bool { lhs.rawValue < rhs.rawValue }
}
