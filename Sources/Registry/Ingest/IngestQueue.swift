import ScorecastCore

/// Requests waiting to be ingested, and the rule that groups them into transactions: the pure
/// half of ``IngestGroupCommit``.
///
/// A group is the oldest waiting request plus any later ones of the same feed whose event ids
/// it does not repeat, up to `eventLimit` events in all. Requests of other feeds, or that
/// repeat an id already in the group, wait for a later group: within one transaction an
/// event id must name one event (the duplicate check is per feed and id).
///
/// A request with an event for a game that a running transaction is ingesting (`busy`) waits
/// too, and the oldest request without one leads: its transaction would only wait on that
/// game's row lock, holding up every other game in it (profiled: two concurrent
/// groups of ~35 random games out of 1,000 nearly always shared one, and the games `FOR
/// UPDATE` was the second costliest statement, all of it lock wait). Postgres' lock still
/// orders a game's transactions; this only keeps them from queueing inside the database.
struct IngestQueue<Ticket> {
    /// One waiting request.
    struct Entry {
        var events: [FeedEvent]
        var feed: String
        var ticket: Ticket

        /// The games its events touch.
        var games: Set<GameKey> { Set(events.map { GameKey(feed: feed, game: $0.game) }) }
    }

    /// A feed's game: what an ingest transaction locks.
    struct GameKey: Hashable {
        var feed: String
        var game: String
    }

    private(set) var waiting: [Entry] = []

    var isEmpty: Bool { waiting.isEmpty }

    mutating func append(_ entry: Entry) {
        waiting.append(entry)
    }

    /// Removes and returns the next group, oldest first; empty when nothing waits that touches
    /// no `busy` game. The oldest such request is always taken, even if it alone exceeds
    /// `eventLimit`.
    mutating func nextGroup(eventLimit: Int, busy: Set<GameKey> = []) -> [Entry] {
        func free(_ entry: Entry) -> Bool {
            busy.isEmpty || entry.events.allSatisfy { !busy.contains(GameKey(feed: entry.feed, game: $0.game)) }
        }
        guard let leader = waiting.firstIndex(where: free) else { return [] }
        let first = waiting[leader]
        var taken = [leader]
        var ids = Set(first.events.map(\.id))
        var count = first.events.count
        for index in waiting.indices[(leader + 1)...] where count < eventLimit {
            let candidate = waiting[index]
            guard candidate.feed == first.feed, count + candidate.events.count <= eventLimit,
                  candidate.events.allSatisfy({ !ids.contains($0.id) }), free(candidate) else { continue }
            ids.formUnion(candidate.events.map(\.id))
            count += candidate.events.count
            taken.append(index)
        }
        let group = taken.map { waiting[$0] }
        for index in taken.reversed() { waiting.remove(at: index) }
        return group
    }
}
