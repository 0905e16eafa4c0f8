/// How a channel's priority-10 budget behaves: the app's profile, the rolling window it is spent
/// over, and how it shrinks after `429 TooManyRequests` and recovers.
public struct BudgetPolicy: Sendable, Hashable {
    /// The app's profile.
    public var profile: BudgetProfile
    /// Length of the rolling window the budget is spent over, in seconds (3600: the hour ending
    /// now, as APNs counts).
    public var windowSeconds: Double
    /// After a 429 the hourly budget becomes this fraction of what it was (rounded down).
    public var shrinkFactor: Double
    /// The budget never shrinks below this.
    public var minimumPerHour: Int
    /// A shrunk budget grows back by this much per full hour without a 429, up to the profile.
    public var recoveryPerHour: Int
    /// Priority-10 sends per window kept for the final whistle: other alerting sends go at 5
    /// once only these are left (`SCORECAST_BUDGET_FINAL_RESERVE`).
    public var finalReserve: Int
    /// How long a 429 lowers the limit at most, in seconds: older ones are forgotten (from 1 to
    /// 60 at 2 per hour takes 30 hours) and the ledger keeps its entries at least this long.
    public var memorySeconds: Double

    /// Creates a policy; defaults: a rolling hour, halve on 429, floor 1, recover 2 per hour, a
    /// 429 remembered for 48 hours, no final reserve (the worker settings pass
    /// `SCORECAST_BUDGET_FINAL_RESERVE`).
    public init(
        profile: BudgetProfile = .standard,
        windowSeconds: Double = 3600,
        shrinkFactor: Double = 0.5,
        minimumPerHour: Int = 1,
        recoveryPerHour: Int = 2,
        finalReserve: Int = 0,
        memorySeconds: Double = 48 * 3600
    ) {
        self.profile = profile
        self.windowSeconds = max(1, windowSeconds)
        self.shrinkFactor = min(1, max(0, shrinkFactor))
        self.minimumPerHour = max(0, minimumPerHour)
        self.recoveryPerHour = max(0, recoveryPerHour)
        self.finalReserve = max(0, finalReserve)
        self.memorySeconds = max(self.windowSeconds, memorySeconds)
    }

    /// This policy under `profile`.
    public func with(_ profile: BudgetProfile) -> BudgetPolicy {
        var policy = self
        policy.profile = profile
        return policy
    }
}
