import APNsCore
/// Which events alert (priority 10 with an `alert`) and which are routine (priority 5, silent).
///
/// Apple's advice is to prefer 5 and spend 10 on what matters (apns.md §5). By default a game
/// starting, a score, a penalty, a suspension, the end and a cancellation alert; everything else
/// (clock, stats, substitutions, yellow cards, periods, video review…) is routine, except a card
/// that sends a player off (`card: red` or `second-yellow`), which alerts. A feed overrides the
/// default per event with `"alert": true|false`.
public struct PriorityPolicy: Sendable, Hashable {
    /// Kinds that alert when the event does not say otherwise.
    public var alertingKinds: Set<EventKind>

    /// The default alerting kinds.
    public static let defaultAlertingKinds: Set<EventKind> = [.start, .score, .penalty, .suspended, .final, .cancelled]

    /// Whether an event's own `alert` flag overrides its kind.
    public var feedMayOverride: Bool

    /// Whether a card that sends a player off alerts whatever its kind's default.
    public var sendingOffAlerts: Bool

    /// The lighter channel tier, for devices whose user turned frequent updates off: only a game
    /// starting, a score and the end alert (priority 10), whatever the feed says; the rest is 5.
    public static let lightTier = PriorityPolicy(
        alertingKinds: [.start, .score, .final], feedMayOverride: false, sendingOffAlerts: false)

    /// Creates a policy.
    public init(
        alertingKinds: Set<EventKind> = PriorityPolicy.defaultAlertingKinds, feedMayOverride: Bool = true,
        sendingOffAlerts: Bool = true
    ) {
        self.alertingKinds = alertingKinds
        self.feedMayOverride = feedMayOverride
        self.sendingOffAlerts = sendingOffAlerts
    }

    /// Whether `event` alerts: its own `alert` flag (when the policy lets it), else its kind's
    /// default; a sending-off alerts whatever its kind's default, unless the tier is light; a
    /// review that disallows a goal alerts as the goal did.
    public func isAlerting(_ event: FeedEvent) -> Bool {
        (feedMayOverride ? event.alert : nil)
            ?? (alertingKinds.contains(event.kind) || (sendingOffAlerts && event.card?.sendsOff == true)
                || (event.disallows != nil && alertingKinds.contains(.score)))
    }

    /// The priority `event` asks for: 10 when alerting, 5 otherwise. The budget may still
    /// lower a 10 to 5 (``ChannelBudget``).
    public func priority(for event: FeedEvent) -> BroadcastPriority {
        isAlerting(event) ? .immediate : .opportunistic
    }
}
