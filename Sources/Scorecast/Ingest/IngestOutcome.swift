/// What happened to one posted event.
public enum IngestOutcome: String, Sendable, Hashable, Codable, CaseIterable {
    /// New, and newer than the game's applied `seq`: folded into the game and rendered for
    /// every bound channel.
    case accepted
    /// Its (feed, id) was seen before: nothing stored, nothing sent.
    case duplicate
    /// New but not newer than the game's applied `seq`: stored, changes nothing, sends nothing.
    case stale
}

/// The answer to `POST /v1/events` (202): one outcome per event, in request order, and totals.
public struct IngestReport: Sendable, Hashable, Codable {
    /// One event's outcome.
    public struct Result: Sendable, Hashable, Codable {
        /// The feed's event id.
        public var id: String
        /// What happened to it.
        public var outcome: IngestOutcome

        /// Creates a result.
        public init(id: String, outcome: IngestOutcome) {
            self.id = id
            self.outcome = outcome
        }
    }

    /// Outcomes in request order.
    public var results: [Result]
    /// How many were accepted.
    public var accepted: Int
    /// How many were duplicates.
    public var duplicates: Int
    /// How many were stale.
    public var stale: Int

    /// Builds the report and its totals from `results`.
    public init(results: [Result]) {
        self.results = results
        accepted = results.count { $0.outcome == .accepted }
        duplicates = results.count { $0.outcome == .duplicate }
        stale = results.count { $0.outcome == .stale }
    }
}
