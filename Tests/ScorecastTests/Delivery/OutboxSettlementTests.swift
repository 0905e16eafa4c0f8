import APNsCore
@testable import Delivery
import DeliveryEngine
import Foundation
import Postgres
import ScorecastCore
import TestSupport
import Testing

/// What the store writes after a send is what ``OutboxSettlement`` decided, on every field of
/// every case, against a real Postgres: both when the claim's copy of the row is still current
/// (written fenced on its version) and when ingest changed the row during the send or the
/// claim's copy is not known (read again under the row lock and settled on what it holds).
@Suite struct OutboxSettlementTests {
    /// Far from any `now`, so that `GREATEST(due_at, now + interval)` is decided both ways.
    private static let past = Date(timeIntervalSince1970: 1_600_000_000.25)
    private static let future = Date(timeIntervalSince1970: 4_100_000_000.5)

    /// One row as stored before the completion, and the completion. Event ids `1…4` stand for
    /// four events stored in `events`; `99` for one that is not.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var version: Int64 = 2
        var alertKeys: [String] = []
        var alerting = false
        var priority = 5
        var dueAt = OutboxSettlementTests.past
        var notBefore: Date?
        var attempts = 0
        var lastError: String?
        var events: [Int] = [1]
        var coalesced = 0
        var firstIngestedAt = OutboxSettlementTests.past
        // The completion.
        var action: OutboxSettlement.Action = .finish
        var claimedVersion: Int64 = 2
        var claimedEvents: [Int] = [1]
        var claimedCoalesced = 0
        var claimedAt: Date? = OutboxSettlementTests.past
        var sentAlertKey: String?
        /// The operation the case is meant to exercise (checked too, so a case cannot drift).
        var expected: OutboxSettlement.Operation

        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "sent and unchanged: deleted", expected: .delete),
        Case(name: "sent, alerts still queued behind it: kept", alertKeys: ["k1", "k2"], alerting: true, priority: 10, sentAlertKey: "k1", expected: .superseded),
        Case(name: "sent, its alert not in the queue: kept", alertKeys: ["k2"], alerting: true, priority: 10, sentAlertKey: "k9", expected: .superseded),
        Case(
            name: "merged into during the send: sent events and counts come off", version: 4, events: [1, 2, 3], coalesced: 2,
            claimedEvents: [1, 2], claimedCoalesced: 1, expected: .superseded),
        Case(name: "a fresh row written over the sent one keeps its counts", version: 3, events: [3], coalesced: 1, claimedEvents: [1], expected: .superseded),
        Case(name: "the send settled the last alert: routine again", version: 3, alertKeys: ["k1"], alerting: true, priority: 10, events: [1, 2], coalesced: 1, sentAlertKey: "k1", expected: .superseded),
        Case(name: "an alert queued during the send stays urgent", version: 3, alertKeys: ["k1", "k2"], alerting: true, priority: 10, events: [1, 2], coalesced: 1, sentAlertKey: "k1", expected: .superseded),
        Case(name: "a row stored before the queue stays alerting", version: 3, alerting: true, priority: 10, events: [1, 2], coalesced: 1, expected: .superseded),
        Case(name: "a routine row due later keeps its due time", version: 3, dueAt: future, events: [1, 2], coalesced: 1, expected: .superseded),
        Case(
            name: "backoff and error of the older content are reset", version: 3, notBefore: future, attempts: 3, lastError: "older", events: [1, 2],
            coalesced: 1, expected: .superseded),
        Case(name: "no remaining event known: the claim time bounds first ingest", version: 3, events: [1, 99], coalesced: 1, claimedAt: future, expected: .superseded),
        Case(name: "no remaining event known, no claim time: the row's own", version: 3, events: [99], claimedAt: nil, expected: .superseded),
        Case(name: "retry counts the attempt and backs off", attempts: 2, action: .retry(delay: 7.5, error: "boom"), expected: .retry),
        Case(name: "retry with a negative delay backs off from now", action: .retry(delay: -3, error: "late"), expected: .retry),
        Case(name: "a release changes nothing but the lease", attempts: 1, lastError: "e", action: .release, expected: .release),
        Case(name: "channel gone cancels even newer work", version: 5, action: .cancelChannel, expected: .delete),
        Case(
            name: "channel gone keeps the alerts APNs never accepted for the channel that replaces it", version: 5, alertKeys: ["k1", "k2"],
            alerting: true, priority: 10, action: .cancelChannel, expected: .release),
        Case(name: "a pause only gives the row back", notBefore: future, attempts: 1, lastError: "x", action: .pauseApp(reason: "bad key"), expected: .release),
        Case(name: "a release only gives the row back", version: 3, alertKeys: ["k1"], alerting: true, priority: 10, action: .release, sentAlertKey: "k1", expected: .release),
    ]

    @Test(arguments: cases, [true, false])
    func theStoreWritesWhatTheSettlementDecided(_ testCase: Case, claimKnown: Bool) async throws {
        try await DeliveryDatabase.with { database in
            let app = try await database.addApp()
            let channel = try await database.addChannel(appID: app)
            var ids: [Int: Int64] = [99: 9_999_999]
            var receivedAt: [Int64: Date] = [:]
            for seq in 1...4 {
                let event = try await database.addEvent(seq: Int64(seq))
                ids[seq] = event.id
                receivedAt[event.id] = event.receivedAt
            }
            let eventIDs = testCase.events.compactMap { ids[$0] }
            let alerts = "[" + testCase.alertKeys.map { #"{"key":"\#($0)","alert":{"title":"t","body":"b"},"at":1}"# }.joined(separator: ",") + "]"
            try await database.pool.execute("""
                INSERT INTO outbox (channel_id, version, payload, payload_timestamp, priority, alerting, alerts, event_ids, first_ingested_at,
                                    coalesced, due_at, not_before, attempts, last_error, lease_owner, lease_expires_at,
                                    claimed_version)
                VALUES (\(channel), \(testCase.version), '\\x01', 10, \(testCase.priority), \(testCase.alerting), \(alerts)::jsonb, \(eventIDs),
                        \(testCase.firstIngestedAt), \(testCase.coalesced), \(testCase.dueAt), \(testCase.notBefore), \(testCase.attempts),
                        \(testCase.lastError), 'w', now() + interval '30 seconds', \(testCase.claimedVersion))
                """)
            let before = try #require(try await Self.row(channel, database))
            var completion = DeliveryCompletion(
                channelID: channel, claimedVersion: testCase.claimedVersion, appID: app, action: testCase.action, delivery: nil,
                sentTimestamp: nil, claimedEventIDs: testCase.claimedEvents.compactMap { ids[$0] },
                claimedCoalesced: testCase.claimedCoalesced, claimedAt: testCase.claimedAt)
            completion.sentAlertKey = testCase.sentAlertKey
            if claimKnown {
                // The row as the claim read it: the claimed version, carrying the claimed events.
                var claimed = before.row
                claimed.version = testCase.claimedVersion
                if testCase.claimedVersion != testCase.version { claimed.eventIDs = completion.claimedEventIDs }
                completion.claimedRow = claimed
            }
            #expect(OutboxSettlement.operation(completion.completed, row: before.row) == testCase.expected)

            // The completion's time, in whole seconds (as Postgres keeps them exactly).
            let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            let result = try await OutboxStore(pool: database.pool, logger: TestDatabase.logger)
                .complete([completion], owner: "w", routineInterval: 30, at: now)
            let after = try await Self.row(channel, database)
            #expect(result.deleted == (testCase.expected == .delete ? [channel] : []))
            #expect(result.superseded == (testCase.expected == .superseded ? [channel] : []))
            let decided = OutboxSettlement.settle(completion.completed, row: before.row, receivedAt: receivedAt, now: now, routineInterval: 30)
            #expect(after.map { Self.microseconds($0.row) } == decided.map(Self.microseconds))
            #expect(after?.leaseOwner == nil)
        }
    }

    @Test func everyColumnIsBoundOnceAndNamedOnce() {
        let names = CompletionColumn.all.map(\.name)
        #expect(Set(names).count == names.count)
        let completion = DeliveryCompletion(
            channelID: 1, claimedVersion: 1, appID: 1, action: .finish, delivery: nil, sentTimestamp: nil)
        let row = OutboxSettlement.Row(
            version: 1, alerts: [], alerting: false, priority: .opportunistic, dueAt: Self.past, notBefore: nil, attempts: 0,
            lastError: nil, eventIDs: [], coalesced: 0, firstIngestedAt: Self.past)
        let write = CompletionWrite(completion, row: row, receivedAt: [:], now: Self.past, routineInterval: 30)
        let sql = CompletionColumn.rows(of: [write, write])
        #expect(sql.binds.count == names.count)
        #expect(sql.text.contains("AS u(" + names.joined(separator: ", ") + ")"))
        for (index, column) in CompletionColumn.all.enumerated() {
            #expect(sql.text.contains("$\(index + 1)::\(column.sqlType)[]"), "column \(column.name) is not argument \(index + 1)")
        }
    }

    private struct Stored {
        var row: OutboxSettlement.Row
        var leaseOwner: String?
        var updatedAt: Date
    }

    private static func row(_ channel: Int64, _ database: DeliveryDatabase) async throws -> Stored? {
        try await database.pool.query("""
            SELECT version, alerts, alerting, priority, due_at, not_before, attempts, last_error, event_ids, coalesced,
                   first_ingested_at, lease_owner, updated_at
            FROM outbox WHERE channel_id = \(channel)
            """).first.map { row in
            Stored(
                row: try OutboxSettlement.Row(stored: row),
                leaseOwner: try row.decode("lease_owner"), updatedAt: try row.decode("updated_at"))
        }
    }

    /// `row` with every time at Postgres' precision (whole microseconds).
    private static func microseconds(_ row: OutboxSettlement.Row) -> OutboxSettlement.Row {
        func rounded(_ date: Date) -> Date { Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1e6).rounded() / 1e6) }
        var row = row
        row.dueAt = rounded(row.dueAt)
        row.notBefore = row.notBefore.map(rounded)
        row.firstIngestedAt = rounded(row.firstIngestedAt)
        return row
    }
}
