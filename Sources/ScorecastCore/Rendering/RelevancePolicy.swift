/// `relevance-score` by game status: when an app shows several activities (a user following
/// several games), the system puts the highest score first, so live games lead.
public struct RelevancePolicy: Sendable, Hashable {
    /// Scores by status; a missing status gets 0.
    public var scores: [GameStatus: Double]

    /// The default: live 100, suspended 60, scheduled 50, final 20, cancelled 10.
    public static let standard = RelevancePolicy(scores: [
        .live: 100, .suspended: 60, .scheduled: 50, .final: 20, .cancelled: 10,
    ])

    /// Creates a policy.
    public init(scores: [GameStatus: Double]) {
        self.scores = scores
    }

    /// The score for a game in `status`.
    public func score(for status: GameStatus) -> Double {
        scores[status] ?? 0
    }
}
