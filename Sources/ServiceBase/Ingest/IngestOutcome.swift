/// What happened to one posted event.
package enum IngestOutcome: String, Sendable, Hashable, Codable, CaseIterable {
    /// New, and newer than the game's applied `seq`: folded into the game and rendered for
    /// every bound channel.
    case accepted
    /// Its (feed, id) was seen before: nothing stored, nothing sent.
    case duplicate
    /// New but not newer than the game's applied `seq`: stored, changes nothing, sends nothing.
    case stale
}

/// The answer to `POST /v1/events` (202): one outcome per event, in request order, and totals.
package struct IngestReport: Sendable, Hashable, Codable {
    /// One event's outcome.
    package struct Result: Sendable, Hashable, Codable {
        /// The feed's event id.
        package var id: String
        /// What happened to it.
        package var outcome: IngestOutcome
        /// Whether its Live Activity update had to give something up to fit 4 KB (counted in
        /// `scorecast_content_states_fitted_total`; not part of the response).
        package var fittedToSize = false

        private enum CodingKeys: String, CodingKey { case id, outcome }

        /// Creates a result.
        package init(id: String, outcome: IngestOutcome) {
            self.id = id
            self.outcome = outcome
        }
    }

    /// Outcomes in request order.
    package var results: [Result]
    /// How many were accepted.
    package var accepted: Int
    /// How many were duplicates.
    package var duplicates: Int
    /// How many were stale.
    package var stale: Int

    /// Builds the report and its totals from `results`.
    package init(results: [Result]) {
        self.results = results
        accepted = results.count { $0.outcome == .accepted }
        duplicates = results.count { $0.outcome == .duplicate }
        stale = results.count { $0.outcome == .stale }
    }
}
