import ScorecastCore

/// Requests waiting to be ingested, and the rule that groups them into transactions: the pure
/// half of ``IngestGroupCommit``.
///
/// A group is the oldest waiting request plus any later ones of the same feed whose event ids
/// it does not repeat, up to `eventLimit` events in all. Requests of other feeds, or that
/// repeat an id already in the group, wait for a later group: within one transaction an
/// event id must name one event (the duplicate check is per feed and id).
struct IngestQueue<Ticket> {
    /// One waiting request.
    struct Entry {
        var events: [FeedEvent]
        var feed: String
        var ticket: Ticket
    }

    private(set) var waiting: [Entry] = []

    var isEmpty: Bool { waiting.isEmpty }

    mutating func append(_ entry: Entry) {
        waiting.append(entry)
    }

    /// Removes and returns the next group, oldest first; empty when nothing waits. The
    /// oldest request is always taken, even if it alone exceeds `eventLimit`.
    mutating func nextGroup(eventLimit: Int) -> [Entry] {
        guard let first = waiting.first else { return [] }
        var taken = [0]
        var ids = Set(first.events.map(\.id))
        var count = first.events.count
        for index in waiting.indices.dropFirst() where count < eventLimit {
            let candidate = waiting[index]
            guard candidate.feed == first.feed, count + candidate.events.count <= eventLimit,
                  candidate.events.allSatisfy({ !ids.contains($0.id) }) else { continue }
            ids.formUnion(candidate.events.map(\.id))
            count += candidate.events.count
            taken.append(index)
        }
        let group = taken.map { waiting[$0] }
        for index in taken.reversed() { waiting.remove(at: index) }
        return group
    }
}
