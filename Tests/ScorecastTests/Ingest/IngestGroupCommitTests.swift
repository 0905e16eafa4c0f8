import Foundation
import Postgres
@testable import Registry
import ScorecastCore
import Testing
import TestSupport

@Suite("Ingest group commit: which waiting requests share a transaction")
struct IngestQueueTests {
    static func events(_ ids: String...) -> [FeedEvent] {
        ids.map { IngestPlanningTests.event($0, seq: 1) }
    }

    @Test("the oldest request leads; same-feed requests join in order up to the event limit")
    func grouping() {
        var queue = IngestQueue<Int>()
        queue.append(.init(events: Self.events("a", "b"), feed: "f1", ticket: 1))
        queue.append(.init(events: Self.events("c"), feed: "f2", ticket: 2))
        queue.append(.init(events: Self.events("d", "e"), feed: "f1", ticket: 3))
        queue.append(.init(events: Self.events("f", "g", "h"), feed: "f1", ticket: 4))
        queue.append(.init(events: Self.events("i"), feed: "f1", ticket: 5))
        #expect(queue.nextGroup(eventLimit: 5).map(\.ticket) == [1, 3, 5], "4 would pass the limit; 2 is another feed")
        #expect(queue.nextGroup(eventLimit: 5).map(\.ticket) == [2])
        #expect(queue.nextGroup(eventLimit: 5).map(\.ticket) == [4])
        #expect(queue.nextGroup(eventLimit: 5).isEmpty)
        #expect(queue.isEmpty)
    }

    @Test("a request repeating an event id of the group waits for the next group")
    func repeatedIDs() {
        var queue = IngestQueue<Int>()
        queue.append(.init(events: Self.events("a"), feed: "f", ticket: 1))
        queue.append(.init(events: Self.events("b", "a"), feed: "f", ticket: 2))
        queue.append(.init(events: Self.events("c"), feed: "f", ticket: 3))
        #expect(queue.nextGroup(eventLimit: 100).map(\.ticket) == [1, 3])
        #expect(queue.nextGroup(eventLimit: 100).map(\.ticket) == [2])
    }

    @Test("a request for a game a running transaction ingests waits; the oldest free request leads")
    func busyGames() {
        func entry(_ ticket: Int, _ games: String..., feed: String = "f") -> IngestQueue<Int>.Entry {
            .init(events: games.map { IngestPlanningTests.event("e\(ticket)\($0)", game: $0, seq: 1) }, feed: feed, ticket: ticket)
        }
        var queue = IngestQueue<Int>()
        queue.append(entry(1, "g1"))
        queue.append(entry(2, "g2", "g1"))
        queue.append(entry(3, "g3"))
        queue.append(entry(4, "g1", feed: "other"))
        queue.append(entry(5, "g4"))
        let busy: Set = [IngestQueue<Int>.GameKey(feed: "f", game: "g1")]
        // 1 and 2 touch the busy g1 (2 only in part); g1 of another feed is another game.
        #expect(queue.nextGroup(eventLimit: 100, busy: busy).map(\.ticket) == [3, 5])
        #expect(queue.nextGroup(eventLimit: 100, busy: busy).map(\.ticket) == [4])
        #expect(queue.nextGroup(eventLimit: 100, busy: busy).isEmpty, "only requests for the busy game wait")
        #expect(!queue.isEmpty)
        // The transaction ends: its game's requests go, oldest first.
        #expect(queue.nextGroup(eventLimit: 100).map(\.ticket) == [1, 2])
        #expect(entry(6, "g1", "g2", "g1").games == [.init(feed: "f", game: "g1"), .init(feed: "f", game: "g2")])
    }

    @Test("a request larger than the limit still goes, alone")
    func oversized() {
        var queue = IngestQueue<Int>()
        queue.append(.init(events: Self.events("a", "b", "c"), feed: "f", ticket: 1))
        queue.append(.init(events: Self.events("d"), feed: "f", ticket: 2))
        #expect(queue.nextGroup(eventLimit: 2).map(\.ticket) == [1])
        #expect(queue.nextGroup(eventLimit: 2).map(\.ticket) == [2])
    }
}

@Suite("Ingest group commit against Postgres: shared transactions, separate answers")
struct IngestGroupCommitTests {
    /// Holds `game`'s row lock in a transaction of its own until `body` returns, so the one
    /// ingest slot stays busy while more requests arrive and queue.
    static func holdingGame(_ game: String, _ fixture: IngestFixture, _ body: (_ holderPID: Int) async throws -> Void) async throws {
        try await fixture.pool.withTransaction { connection in
            let holderPID = try await connection.query("SELECT pg_backend_pid() AS pid")[0].decode("pid", as: Int.self)
            _ = try await connection.query("SELECT id FROM games WHERE id = \(game) FOR UPDATE")
            try await body(holderPID)
        }
    }

    static func groupsCommitted(_ fixture: IngestFixture) -> [Int] {
        fixture.logSink.lines.filter { $0.contains("ingest group committed") }.compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("requests=") }.flatMap { Int($0.dropFirst("requests=".count)) }
        }
    }

    @Test("requests queued behind a busy transaction share the next one; each gets its own outcomes")
    func sharedTransaction() async throws {
        try await IngestFixture.with(configure: { $0.transactions = 1 }) { fixture in
            for game in 0..<10 { try await fixture.addGame("g\(game)") }
            try await fixture.addChannel(boundTo: "g1")
            let replies = try await withThrowingTaskGroup(of: (String, Reply).self) { group in
                try await Self.holdingGame("g0", fixture) { holderPID in
                    group.addTask { ("first", await fixture.post(EventJSON.event(id: "first", game: "g0", seq: 1, kind: "start"))) }
                    // The first holds the one slot, waiting on the game's lock (an event, not a
                    // guessed 200 ms), so the rest queue behind it.
                    try await fixture.waitForLockWaiter(blockedBy: holderPID, "the first post waits on the held game")
                    for index in 0..<30 {
                        let event = EventJSON.event(id: "e\(index)", game: "g\(index % 10)", seq: 100 + index, kind: "start")
                        group.addTask { ("e\(index)", await fixture.post(event)) }
                    }
                    try await fixture.waitForArrivals(31)
                    // The queued requests arrived before this: their wait counts as latency.
                    fixture.clock.advance(by: .seconds(60))
                }
                var replies: [String: Reply] = [:]
                for try await (id, reply) in group { replies[id] = reply }
                return replies
            }
            #expect(replies.count == 31)
            let row = try #require(try await fixture.pool.query("SELECT first_ingested_at FROM outbox").first)
            let ingested: Date = try row.decode("first_ingested_at")
            #expect(abs(ingested.timeIntervalSince(fixture.clock.now().addingTimeInterval(-60))) < 0.01,
                    "the row's ingest time is its request's arrival, not the later start of the shared transaction")
            for (id, reply) in replies {
                #expect(reply.status == 202, "\(id): \(reply.text)")
                #expect(reply.outcomes == [id: "accepted"], "\(id) got exactly its own outcome")
            }
            let counts = try await fixture.counts()
            #expect(counts["events"] == 31)
            let groups = Self.groupsCommitted(fixture)
            #expect(groups.contains { $0 > 1 }, "queued requests shared a transaction: \(groups)")
            #expect(counts["outbox"] == 1, "the channel bound to g1 got its row")
        }
    }

    @Test("a transaction waiting on a game's lock holds up no other game: the free slot takes the next game's request")
    func busyGameHoldsOnlyItself() async throws {
        try await IngestFixture.with(configure: { $0.transactions = 2 }) { fixture in
            for game in 0..<2 { try await fixture.addGame("g\(game)") }
            try await withThrowingTaskGroup(of: Reply.self) { group in
                try await Self.holdingGame("g0", fixture) { holderPID in
                    group.addTask { await fixture.post(EventJSON.event(id: "first", game: "g0", seq: 1, kind: "start")) }
                    try await fixture.waitForLockWaiter(blockedBy: holderPID, "the first post waits on the held game")
                    // Another post for g0 would only wait on the same lock: it waits in the queue,
                    // leaving the second slot free for other games.
                    group.addTask { await fixture.post(EventJSON.event(id: "second", game: "g0", seq: 2, kind: "start")) }
                    try await fixture.waitForArrivals(2)
                    let other = try await withDeadline("a post for g1 answered while g0's lock is held") {
                        await fixture.post(EventJSON.event(id: "other", game: "g1", seq: 1, kind: "start"))
                    }
                    #expect(other.status == 202, "\(other.text)")
                    let waiting = try await fixture.pool.query("""
                        SELECT count(*)::int AS n FROM pg_stat_activity WHERE \(holderPID) = ANY(pg_blocking_pids(pid))
                        """)[0].decode("n", as: Int.self)
                    #expect(waiting == 1, "only the first post's transaction waits on g0 in the database")
                }
                for try await reply in group { #expect(reply.status == 202, "\(reply.text)") }
            }
            #expect(try await fixture.counts()["events"] == 3)
        }
    }

    @Test("one refused request in a group is refused alone; the others are ingested")
    func refusalIsolated() async throws {
        try await IngestFixture.with(configure: { $0.transactions = 1; $0.createUnknownGames = false }) { fixture in
            for game in 0..<4 { try await fixture.addGame("g\(game)") }
            let replies = try await withThrowingTaskGroup(of: (String, Reply).self) { group in
                try await Self.holdingGame("g0", fixture) { holderPID in
                    group.addTask { ("first", await fixture.post(EventJSON.event(id: "first", game: "g0", seq: 1))) }
                    // The first holds the one slot, waiting on the game's lock (an event, not a
                    // guessed 200 ms), so the rest queue behind it.
                    try await fixture.waitForLockWaiter(blockedBy: holderPID, "the first post waits on the held game")
                    for index in 1...6 {
                        let game = index == 3 ? "missing" : "g\(index % 4)"
                        let event = EventJSON.event(id: "e\(index)", game: game, seq: 10 + index)
                        group.addTask { ("e\(index)", await fixture.post(event)) }
                    }
                    try await fixture.waitForArrivals(7)
                }
                var replies: [String: Reply] = [:]
                for try await (id, reply) in group { replies[id] = reply }
                return replies
            }
            #expect(replies["e3"]?.status == 422)
            #expect(replies["e3"]?.fields == ["game"], "the problem names the field of that request alone")
            for id in ["first", "e1", "e2", "e4", "e5", "e6"] {
                #expect(replies[id]?.status == 202, "\(id): \(replies[id]?.text ?? "no reply")")
            }
            #expect(try await fixture.counts()["events"] == 6)
            #expect(try await fixture.eventID("e3") == nil)
        }
    }

    @Test("the same event posted twice at once: one accepted, one duplicate, even when both queue")
    func sameEventTwice() async throws {
        try await IngestFixture.with(configure: { $0.transactions = 1 }) { fixture in
            try await fixture.addGame("g0")
            try await fixture.addGame("g1")
            let replies = try await withThrowingTaskGroup(of: Reply.self) { group in
                try await Self.holdingGame("g0", fixture) { holderPID in
                    group.addTask { await fixture.post(EventJSON.event(id: "first", game: "g0", seq: 1)) }
                    // The first holds the one slot, waiting on the game's lock (an event, not a
                    // guessed 200 ms), so the rest queue behind it.
                    try await fixture.waitForLockWaiter(blockedBy: holderPID, "the first post waits on the held game")
                    for _ in 0..<2 {
                        group.addTask { await fixture.post(EventJSON.event(id: "twice", game: "g1", seq: 5)) }
                    }
                    try await fixture.waitForArrivals(3)
                }
                var replies: [Reply] = []
                for try await reply in group { replies.append(reply) }
                return replies
            }
            let outcomes = replies.compactMap { $0.outcomes["twice"] }.sorted()
            #expect(outcomes == ["accepted", "duplicate"])
        }
    }
}
