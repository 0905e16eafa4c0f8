import APNsCore
/// The priority to send at, after the channel's budget had its say.
public struct BudgetDecision: Sendable, Hashable {
    /// The `apns-priority` to send.
    public var priority: BroadcastPriority
    /// Whether a wanted 10 was lowered to 5 because the budget is spent (counted as *downgraded*).
    public var downgraded: Bool
    /// Priority-10 sends left in the current window after this one.
    public var remaining: Int

    /// Creates a decision.
    public init(priority: BroadcastPriority, downgraded: Bool, remaining: Int) {
        self.priority = priority
        self.downgraded = downgraded
        self.remaining = remaining
    }
}
