import HTTPServer
import ServiceBase

/// A refused ingest request on its way out of `EventsEndpoint`: the answer, and what to count.
struct IngestRefused: Error {
    let reason: IngestRefusal
    /// The key's name; empty when the request was not authenticated.
    let feed: String
    /// Events in the request; 1 when they were never read (the request is the unit then).
    let events: Int
    let problem: Problem
}
