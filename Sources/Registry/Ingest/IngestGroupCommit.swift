import Foundation
import Postgres
import ScorecastLogging
import ScorecastCore
import ServiceBase
import Synchronization

/// Ingests concurrent requests in shared transactions: group commit for the feed.
///
/// A request that finds a transaction slot free is ingested at once, alone. Requests that
/// arrive while every slot is busy wait, and the next free slot takes them together
/// (``IngestQueue``): one transaction, one set of statements over arrays and one WAL flush for
/// all of them instead of one each. Under load this is what lets Postgres keep up; when idle
/// it adds no delay.
///
/// Each request still gets its own answer. A group is folded as one batch would be, which is
/// a valid order of its requests (a game's events apply in `seq` order). When a group is
/// refused for one request's sake (``IngestError``: an unknown game, an unrenderable update),
/// its requests are ingested again one by one, so only that request is refused. A database
/// failure fails the whole group (nothing of it was written).
///
/// A group waits on the database no longer than its most impatient request may
/// (``PostgresDeadline``): the request's deadline travels with it into the shared transaction.
package final class IngestGroupCommit: Sendable {
    /// A waiting request's answer, when it arrived (its events' ingest time), and how long it
    /// may wait on the database.
    private struct Ticket {
        var answer: CheckedContinuation<IngestReport, any Error>
        var receivedAt: Date
        var deadline: PostgresDeadline
    }
    private typealias Entry = IngestQueue<Ticket>.Entry

    private struct State {
        var queue = IngestQueue<Ticket>()
        var running = 0
        /// The games of the groups being ingested (running groups never share one).
        var busy: Set<IngestQueue<Ticket>.GameKey> = []
    }

    private let ingestor: EventIngestor
    private let transactions: Int
    private let eventLimit: Int
    private let logger: Logger
    private let state = Mutex(State())

    /// - Parameters:
    ///   - transactions: how many ingest transactions may run at once (`SCORECAST_INGEST_TRANSACTIONS`).
    ///   - eventLimit: the most events a group may hold (one larger request still goes alone).
    package init(ingestor: EventIngestor, transactions: Int, eventLimit: Int, logger: Logger) {
        precondition(transactions >= 1 && eventLimit >= 1, "at least one transaction of at least one event")
        self.ingestor = ingestor
        self.transactions = transactions
        self.eventLimit = eventLimit
        self.logger = logger.named("ingest")
    }

    /// Ingests `events` posted by `feed`, with whatever else is waiting.
    ///
    /// - Throws: ``IngestError`` when this request is refused (nothing of it written),
    ///   `PostgresError` when the database fails.
    package func ingest(_ events: [FeedEvent], feed: String) async throws -> IngestReport {
        let receivedAt = ingestor.clock.now()
        let deadline = PostgresDeadline.ofCurrentTask
        return try await withCheckedThrowingContinuation { answer in
            let startsSlot = state.withLock { state in
                state.queue.append(Entry(events: events, feed: feed, ticket: Ticket(answer: answer, receivedAt: receivedAt, deadline: deadline)))
                guard state.running < transactions else { return false }
                state.running += 1
                return true
            }
            if startsSlot {
                Task { await self.runSlot() }
            }
        }
    }

    /// One transaction slot: takes groups until nothing waits that another slot is not already
    /// ingesting a game of, then frees itself. (Requests for this slot's own games wait for its
    /// next turn: the slot looks again as soon as its group is committed.)
    private func runSlot() async {
        var games: Set<IngestQueue<Ticket>.GameKey> = []
        while true {
            let group = state.withLock { state in
                state.busy.subtract(games)
                let group = state.queue.nextGroup(eventLimit: eventLimit, busy: state.busy)
                if group.isEmpty { state.running -= 1 }
                games = group.reduce(into: []) { $0.formUnion($1.games) }
                state.busy.formUnion(games)
                return group
            }
            guard !group.isEmpty else { return }
            await commit(group)
        }
    }

    private func commit(_ group: [Entry]) async {
        guard group.count > 1 else {
            await ingestAlone(group[0])
            return
        }
        let events = group.flatMap(\.events)
        do {
            // The group's rows are as old as its oldest request: the wait counts as latency.
            let report = try await PostgresDeadline.applying(.earliest(group.map(\.ticket.deadline))) {
                try await ingestor.ingest(events, feed: group[0].feed, receivedAt: group.map(\.ticket.receivedAt).min())
            }
            var offset = 0
            for entry in group {
                let results = report.results[offset..<(offset + entry.events.count)]
                entry.ticket.answer.resume(returning: IngestReport(results: Array(results)))
                offset += entry.events.count
            }
            logger.debug("ingest group committed", ["requests": "\(group.count)", "events": "\(events.count)"])
        } catch is IngestError {
            logger.debug("ingest group refused for one request; ingesting its requests one by one", ["requests": "\(group.count)"])
            for entry in group { await ingestAlone(entry) }
        } catch {
            for entry in group { entry.ticket.answer.resume(throwing: error) }
        }
    }

    private func ingestAlone(_ entry: Entry) async {
        do {
            entry.ticket.answer.resume(returning: try await PostgresDeadline.applying(entry.ticket.deadline) {
                try await ingestor.ingest(entry.events, feed: entry.feed, receivedAt: entry.ticket.receivedAt)
            })
        } catch {
            entry.ticket.answer.resume(throwing: error)
        }
    }
}
