/// Running totals since start or reset.
public struct SimulatorStatistics: Sendable, Equatable, Codable {
    /// Requests received (answered, reset or ignored).
    public let received: Int
    /// Counts by answer: `"200"`, `"400 BadExpirationDate"`, `"reset"`, `"ignored"`…
    public let answers: [String: Int]
}
