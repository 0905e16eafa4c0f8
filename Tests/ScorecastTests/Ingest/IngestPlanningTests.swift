import DeliveryEngine
import Foundation
import JSON
import Registry
import ScorecastCore
import Testing

@Suite("Ingest planning: folding and outbox rows, without a database")
struct IngestPlanningTests {
    static let start = Date(timeIntervalSince1970: 1_764_450_000)

    static func event(_ id: String, game: String = "g1", seq: Int, at offset: Double = 0, kind: EventKind = .clock,
                      home: Int? = nil, clock: String? = nil) -> FeedEvent {
        FeedEvent(
            id: id, game: game, seq: seq, occurredAt: start.addingTimeInterval(offset), kind: kind,
            scoreboard: ScoreboardUpdate(home: home, clock: clock.map(FieldUpdate.set) ?? .keep), team: .home)
    }

    @Test("duplicates skipped, per-game seq order, stale when not newer")
    func fold() {
        let events = [
            Self.event("b", seq: 3, kind: .score, home: 1),
            Self.event("a", seq: 2, kind: .start),
            Self.event("dup", seq: 9),
            Self.event("same", seq: 3),
            Self.event("x", game: "g2", seq: 1),
            Self.event("y", game: "g2", seq: 1),
        ]
        var g2 = GameState.initial
        g2.appliedSeq = 0
        let fold = GameFold(
            events: events, isDuplicate: [false, false, true, false, false, false],
            games: ["g1": GameState(status: .scheduled, homeScore: 0, awayScore: 0, appliedSeq: 1), "g2": g2])
        #expect(fold.outcomes == [.accepted, .accepted, .duplicate, .stale, .accepted, .stale])
        #expect(fold.steps["g1"]?.map(\.event.id) == ["a", "b"])
        #expect(fold.states["g1"]?.appliedSeq == 3)
        #expect(fold.states["g1"]?.homeScore == 1)
        #expect(fold.states["g1"]?.status == .live)
        #expect(fold.staleIndices == [3, 5])
        #expect(fold.states["g2"]?.appliedSeq == 1)
    }

    static func target(
        _ channel: Int64, lastTimestamp: Int = 0, lastSentAt: Date? = nil, pending: PendingOutboxRow? = nil,
        settings: RenderSettings = RenderSettings()
    ) -> ChannelTarget {
        ChannelTarget(
            channelID: channel, gameID: "g1", lastTimestamp: lastTimestamp, lastSentAt: lastSentAt,
            renderer: LiveActivityRenderer(settings: settings), pending: pending)
    }

    static func plan(_ events: [FeedEvent], targets: [ChannelTarget], state: GameState = .initial, now: Date = start) throws -> [OutboxWrite] {
        let fold = GameFold(events: events, isDuplicate: events.map { _ in false }, games: ["g1": state], sports: ["g1": "soccer"])
        var ids: [Int: Int64] = [:]
        for index in events.indices { ids[index] = Int64(100 + index) }
        return try OutboxPlanner(shaping: ShapingPolicy(routineInterval: 10)).plan(
            fold: fold, games: ["g1": GameInfo(sport: "soccer", homeName: "Arsenal", awayName: "Chelsea")],
            targets: targets, eventIDs: ids, now: now)
    }

    @Test("new rows: one per channel, alerting due now, routine spaced from the last send")
    func newRows() throws {
        let lastSend = Self.start.addingTimeInterval(-3)
        let writes = try Self.plan([Self.event("t", seq: 1, clock: "5'")], targets: [
            Self.target(2, lastSentAt: lastSend), Self.target(1),
        ])
        #expect(writes.map(\.channelID) == [1, 2])
        #expect(writes.allSatisfy { $0.expectedVersion == 0 && $0.version == 1 && !$0.replacesLeased })
        #expect(writes[0].entry.dueAt == Self.start)
        #expect(writes[1].entry.dueAt == lastSend.addingTimeInterval(10))
        #expect(writes[0].entry.eventIDs == ["100"])
        #expect(writes[0].entry.priority == .opportunistic)

        let goal = try Self.plan([Self.event("g", seq: 1, kind: .score, home: 1)], targets: [Self.target(2, lastSentAt: lastSend)])
        #expect(goal[0].entry.dueAt == Self.start)
        #expect(goal[0].entry.priority == .immediate)
        #expect(goal[0].entry.isAlerting)

        // A card is routine (priority 5, no alert) but notable: it is not held back either.
        let card = try Self.plan([Self.event("c", seq: 1, kind: .card)], targets: [Self.target(2, lastSentAt: lastSend)])
        #expect(card[0].entry.dueAt == Self.start)
        #expect(card[0].entry.priority == .opportunistic)
        #expect(!card[0].entry.isAlerting)
    }

    @Test("a clock tick that changes nothing shown writes nothing; a jump in the clock does")
    func ticksTheClockAlreadyShows() throws {
        let running = try #require(GameState.initial.applying(
            FeedEvent(id: "k", game: "g1", seq: 1, occurredAt: Self.start, kind: .start,
                      scoreboard: ScoreboardUpdate(period: .set("1H"), clock: .set("0'"))),
            profile: .football).state)
        let steady = try Self.plan([Self.event("t", seq: 2, at: 180, clock: "4'")], targets: [Self.target(1)], state: running, now: Self.start.addingTimeInterval(180))
        #expect(steady.isEmpty)
        let jumped = try Self.plan([Self.event("t", seq: 2, at: 180, clock: "10'")], targets: [Self.target(1)], state: running, now: Self.start.addingTimeInterval(180))
        #expect(jumped.count == 1)
        #expect(jumped.first?.entry.payload.contentState["clock"]?["seconds"] == 540)
    }

    @Test("several events in one request coalesce; the alert survives a later routine event")
    func coalescesWithinRequest() throws {
        let writes = try Self.plan([
            Self.event("g", seq: 1, at: 1, kind: .score, home: 1),
            Self.event("t", seq: 2, at: 2, clock: "9'"),
        ], targets: [Self.target(1)], now: Self.start.addingTimeInterval(2))
        let entry = try #require(writes.first?.entry)
        #expect(entry.coalesced == 1)
        #expect(entry.eventIDs == ["100", "101"])
        #expect(entry.priority == .immediate)
        #expect(entry.payload.alert == nil, "the state is kept apart from the announcements")
        #expect(entry.alerts.map(\.key) == ["100"])
        #expect(entry.payload.contentState["clock"]?["label"]?.stringValue == "9'")
        #expect(entry.payload.timestamp == 1_764_450_002)
    }

    static func pendingRow(leased: Bool, attempts: Int = 0) throws -> PendingOutboxRow {
        let renderer = LiveActivityRenderer()
        var state = GameState.initial
        state = state.applying(Self.event("old", seq: 1, at: 50, kind: .score, home: 1)).state ?? state
        let update = try renderer.render(
            state: state, game: GameInfo(sport: "soccer", homeName: "A", awayName: "B"),
            event: Self.event("old", seq: 1, at: 50, kind: .score, home: 1), channelLastTimestamp: nil)
        var entry = OutboxEntry(update: update, dueAt: Self.start.addingTimeInterval(-5), now: Self.start.addingTimeInterval(-5))
        entry.eventIDs = ["7"]
        entry.attempts = attempts
        if attempts > 0 {
            entry.dueAt = Self.start.addingTimeInterval(20)
            entry.notBefore = entry.dueAt
        }
        return PendingOutboxRow(version: 4, entry: entry, isLeased: leased)
    }

    @Test("a pending row not being sent is merged: version fenced, alert and queue time kept")
    func mergesPending() throws {
        let pending = try Self.pendingRow(leased: false)
        let writes = try Self.plan([Self.event("t", seq: 2, at: 10, clock: "3'")], targets: [Self.target(1, pending: pending)],
                                   state: GameState(status: .live, homeScore: 1, awayScore: 0, appliedSeq: 1))
        let write = try #require(writes.first)
        #expect(write.expectedVersion == 4 && write.version == 5)
        #expect(write.entry.coalesced == 1)
        #expect(write.entry.eventIDs == ["7", "100"])
        #expect(write.entry.alerts == pending.entry.alerts)
        #expect(write.entry.enqueuedAt == pending.entry.enqueuedAt)
        #expect(write.entry.payload.timestamp == 1_764_450_050, "never before the pending row's timestamp")
    }

    @Test("a leased row is merged into, its in-flight alert kept at the head; a newer update resets a row's backoff")
    func leasedAndBackoff() throws {
        let leased = try Self.pendingRow(leased: true)
        let writes = try Self.plan([Self.event("t", seq: 2, at: 10, clock: "3'")], targets: [Self.target(1, pending: leased)],
                                   state: GameState(status: .live, homeScore: 1, awayScore: 0, appliedSeq: 1))
        let write = try #require(writes.first)
        #expect(write.replacesLeased && write.expectedVersion == 4)
        #expect(write.entry.coalesced == 1 && write.entry.attempts == 0)
        #expect(write.entry.alerts == leased.entry.alerts, "the alert in flight leaves the queue when its send completes")
        #expect(write.entry.payload.alert == nil)
        #expect(write.entry.eventIDs == ["7", "100"])
        #expect(write.entry.payload.timestamp == 1_764_450_050)
        #expect(write.entry.dueAt == Self.start.addingTimeInterval(10), "spaced from the send in flight")

        let backingOff = try Self.pendingRow(leased: false, attempts: 3)
        let retried = try #require(try Self.plan([Self.event("g", seq: 2, kind: .score, home: 2)], targets: [Self.target(1, pending: backingOff)],
                                                 state: GameState(status: .live, homeScore: 1, awayScore: 0, appliedSeq: 1)).first)
        #expect(retried.entry.attempts == 0)
        #expect(retried.entry.claimableAt == Self.start, "a goal goes now, whatever the older content's backoff")
    }

    @Test("an update that cannot be sent names the event; one merely too large is fitted, not refused")
    func refusal() throws {
        var extra: [String: JSONValue] = [:]
        for index in 0..<60 { extra["key\(index)"] = .string(String(repeating: "v", count: 64)) }
        let large = GameState(status: .live, homeScore: 0, awayScore: 0, extra: extra, appliedSeq: 1)
        let fitted = try #require(try Self.plan([Self.event("big", seq: 2)], targets: [Self.target(1)], state: large).first)
        #expect(fitted.entry.payload.contentState["extra"]?["key0"]?.stringValue == String(repeating: "v", count: 15) + "…")
        // A clock that is not a number can never be written as JSON: that is still refused.
        let broken = GameState(
            status: .live, homeScore: 0, awayScore: 0, clock: "67'",
            clockAnchor: ClockAnchor(running: false, seconds: .infinity, at: Self.start), appliedSeq: 1)
        #expect(throws: RenderRefusal.self) {
            try Self.plan([Self.event("ok", seq: 2), Self.event("bad", seq: 3)], targets: [Self.target(1)], state: broken)
        }
        do {
            _ = try Self.plan([Self.event("bad", seq: 2)], targets: [Self.target(1)], state: broken)
            Issue.record("expected a refusal")
        } catch let refusal as RenderRefusal {
            #expect(refusal.index == 0 && refusal.channelID == 1)
        }
    }
}
