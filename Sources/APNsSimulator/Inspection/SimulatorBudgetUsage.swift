/// The budget position of one channel.
public struct SimulatorBudgetUsage: Sendable, Equatable, Codable {
    /// The channel id.
    public let channelID: String
    /// The app it belongs to.
    public let bundleID: String
    /// 0 or 1.
    public let messageStoragePolicy: Int
    /// The hourly priority-10 budget that applies; `nil` when unlimited.
    public let budgetPerHour: Int?
    /// Priority-10 sends accepted in the last hour.
    public let usedInWindow: Int
    /// What is left this hour; `nil` when unlimited.
    public let remaining: Int?
    /// When the oldest counted send leaves the window (UNIX seconds), if any is counted.
    public let freesAt: Double?
    /// Priority-10 sends accepted since the channel was created.
    public let priorityTenSends: Int
    /// Priority-5 (and 1) sends accepted since the channel was created.
    public let otherSends: Int
    /// Sends refused with `429 TooManyRequests`.
    public let throttled: Int
}
