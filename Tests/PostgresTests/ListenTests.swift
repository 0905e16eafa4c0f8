import Foundation
import ScorecastLogging
import Postgres
import TestSupport
import Testing

@Suite struct ListenTests {
    private func uniqueChannel() -> String { "ch_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased() }

    /// Notifies `channel` every 20 ms with `prefix` + a counter until `iterator` yields one with
    /// that prefix (a subscription becomes active a moment after `listen` returns, and
    /// notifications sent while disconnected are lost), or `timeout` passes.
    private func notifyUntilReceived(
        _ pool: PostgresPool, channel: String, prefix: String,
        iterator: inout AsyncThrowingStream<PostgresNotification, Error>.Iterator,
        timeout: Duration = .seconds(10)
    ) async throws -> PostgresNotification? {
        let sender = Task {
            var count = 0
            let deadline = ContinuousClock.now + timeout
            while !Task.isCancelled, ContinuousClock.now < deadline {
                try? await pool.notify(channel: channel, payload: "\(prefix)\(count)")
                count += 1
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        defer { sender.cancel() }
        while let notification = try await iterator.next() {
            if notification.payload.hasPrefix(prefix) { return notification }
        }
        return nil
    }

    private func listenerPIDs(channel: String) async throws -> [Int32] {
        let admin = try await PostgresConnection.connect(configuration: TestDatabase.shared().configuration, logger: TestDatabase.logger)
        let rows = try await admin.query("SELECT pid FROM pg_stat_activity WHERE query = \("LISTEN \"\(channel)\"")")
        await admin.close()
        return try rows.map { try $0.decode("pid", as: Int32.self) }
    }

    @Test func notificationsArriveOnTheStream() async throws {
        let pool = try await TestDatabase.shared().makePool()
        let channel = uniqueChannel()
        var iterator = pool.listen(channel).makeAsyncIterator()
        let received = try await notifyUntilReceived(pool, channel: channel, prefix: "hello-", iterator: &iterator)
        #expect(received?.channel == channel)
        #expect(received?.payload.hasPrefix("hello-") == true)
        #expect((received?.backendPID ?? 0) > 0)

        // Once listening, every notification arrives, in order, payloads intact.
        let payloads = ["one", "two", "日本 🏒", "", "'; DROP TABLE x; --"]
        for payload in payloads { try await pool.notify(channel: channel, payload: payload) }
        var seen: [String] = []
        while seen.count < payloads.count, let next = try await iterator.next() {
            if !next.payload.hasPrefix("hello-") { seen.append(next.payload) }
        }
        #expect(seen == payloads)
        await pool.close()
        #expect(try await iterator.next() == nil)
    }

    @Test func listeningResumesAfterTheConnectionIsKilled() async throws {
        let sink = MemorySink()
        let pool = try await TestDatabase.shared().makePool(logger: Logger(label: "t", level: .notice, sink: sink))
        let channel = uniqueChannel()
        var iterator = pool.listen(channel).makeAsyncIterator()
        #expect(try await notifyUntilReceived(pool, channel: channel, prefix: "before-", iterator: &iterator) != nil)
        let pids = try await listenerPIDs(channel: channel)
        #expect(pids.count == 1)
        for pid in pids { _ = try await pool.query("SELECT pg_terminate_backend(\(pid))") }
        let after = try await notifyUntilReceived(pool, channel: channel, prefix: "after-", iterator: &iterator)
        #expect(after?.payload.hasPrefix("after-") == true)
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
            #expect(try await notifyUntilReceived(pool, channel: channel, prefix: "x-", iterator: &iterator) != nil)
            #expect(try await listenerPIDs(channel: channel).count == 1)
        }
        // However long the listener's connection takes to close on a loaded machine (a 5 s
        // bound was a margin); a listener that never closes fails at the hang deadline.
        try await waitUntil("the listener's connection closes", every: .milliseconds(20)) {
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
