import Foundation
import ScorecastLogging
import Postgres
import TestSupport
import Testing

@Suite struct ListenTests {
    private func uniqueChannel() -> String { "ch_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased() }

    private typealias Events = AsyncThrowingStream<PostgresListenEvent, Error>.Iterator

    /// The next `.listening`, failing on a notification first (none is sent before it here).
    private func nextListening(_ iterator: inout Events) async throws {
        let event = try await iterator.next()
        #expect(event == .listening)
    }

    /// The next notification's payload, failing on anything else.
    private func nextPayload(_ iterator: inout Events) async throws -> String? {
        guard case .notification(let notification)? = try await iterator.next() else { return nil }
        return notification.payload
    }

    private func listenerPIDs(channel: String) async throws -> [Int32] {
        let admin = try await PostgresConnection.connect(configuration: TestDatabase.shared().configuration, logger: TestDatabase.logger)
        let rows = try await admin.query("SELECT pid FROM pg_stat_activity WHERE query = \("LISTEN \"\(channel)\"")")
        await admin.close()
        return try rows.map { try $0.decode("pid", as: Int32.self) }
    }

    /// The subscription says when it is active; from then on every notification arrives,
    /// once, in order, payloads intact — no need to send until one gets through.
    @Test func notificationsSentOnceListeningArriveOnTheStream() async throws {
        let pool = try await TestDatabase.shared().makePool()
        let channel = uniqueChannel()
        var iterator = pool.listen(channel).makeAsyncIterator()
        try await nextListening(&iterator)
        try await pool.notify(channel: channel, payload: "hello")
        let first = try await iterator.next()
        guard case .notification(let received)? = first else {
            Issue.record("expected a notification, got \(String(describing: first))")
            return
        }
        #expect(received.channel == channel)
        #expect(received.payload == "hello")
        #expect(received.backendPID > 0)

        let payloads = ["one", "two", "日本 🏒", "", "'; DROP TABLE x; --"]
        for payload in payloads { try await pool.notify(channel: channel, payload: payload) }
        var seen: [String] = []
        while seen.count < payloads.count, let payload = try await nextPayload(&iterator) { seen.append(payload) }
        #expect(seen == payloads)
        await pool.close()
        #expect(try await iterator.next() == nil)
    }

    /// A notification sent while the connection is down is lost; the stream says `.listening`
    /// again once the new connection listens, and what is sent after that arrives. (The
    /// workers look at the outbox on that event: `ListenGapTests`.)
    @Test func listeningResumesAfterTheConnectionIsKilledAndSaysSo() async throws {
        let sink = MemorySink()
        let pool = try await TestDatabase.shared().makePool(logger: Logger(label: "t", level: .notice, sink: sink))
        let channel = uniqueChannel()
        var iterator = pool.listen(channel).makeAsyncIterator()
        try await nextListening(&iterator)
        let pids = try await listenerPIDs(channel: channel)
        #expect(pids.count == 1)
        for pid in pids { _ = try await pool.query("SELECT pg_terminate_backend(\(pid))") }
        try await nextListening(&iterator)
        try await pool.notify(channel: channel, payload: "after")
        #expect(try await nextPayload(&iterator) == "after")
        #expect(try await listenerPIDs(channel: channel).allSatisfy { !pids.contains($0) })
        await pool.close()
        #expect(sink.lines.contains { $0.contains("listen connection lost") })
        #expect(sink.lines.contains { $0.contains("listening again") })
    }

    @Test func theListenerStopsWhenItsConsumerGoesAway() async throws {
        let pool = try await TestDatabase.shared().makePool()
        let channel = uniqueChannel()
        do {
            var iterator = pool.listen(channel).makeAsyncIterator()
            try await nextListening(&iterator)
            #expect(try await listenerPIDs(channel: channel).count == 1)
        }
        // However long the listener's connection takes to close on a loaded machine (a 5 s
        // bound was a margin); a listener that never closes fails at the hang deadline.
        try await eventually("the listener's connection closes", every: .milliseconds(20)) {
            try await listenerPIDs(channel: channel).isEmpty
        }
        await pool.close()
    }

    @Test func badChannelNamesFailTheStream() async throws {
        let pool = try await TestDatabase.shared().makePool()
        var iterator = pool.listen(String(repeating: "x", count: 64)).makeAsyncIterator()
        await #expect(throws: PostgresError.self) { _ = try await iterator.next() }
        await #expect(throws: PostgresError.self) { try await pool.notify(channel: "", payload: "x") }
        await pool.close()
    }
}
