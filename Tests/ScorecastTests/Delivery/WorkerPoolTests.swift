import APNs
import APNsSimulator
import Clocks
import Delivery
import DeliveryEngine
import Foundation
import Lifecycle
import Postgres
import ScorecastCore
import ScorecastCrypto
import TestSupport
import Testing

/// The worker pool end to end through a real Postgres and the APNs simulator over HTTP/2 + TLS.
@Suite struct WorkerPoolTests {
    @Test func aRowIsSentWithExactlyTheHeadersAndBodyApnsRequires() async throws {
        try await DeliveryHarness.with { harness in
            let noStore = try await harness.createChannel(policy: .noMessageStored)
            let stored = try await harness.createChannel(policy: .mostRecentMessageStored)
            let workers = harness.makePool(harness.settings())
            let startedAt = Int(Date().timeIntervalSince1970)
            try await harness.running(workers) {
                try await harness.enqueue(channelID: noStore.id, score: 3, timestamp: 1_750_000_003)
                try await harness.enqueue(channelID: stored.id, score: 4, timestamp: 1_750_000_004, priority: 5, alerting: false)
                try await eventually("both rows are sent") { try await harness.outboxCount() == 0 }
            }
            let endedAt = Int(Date().timeIntervalSince1970)
            for (channel, score, timestamp, priority) in [(noStore, 3, 1_750_000_003, "10"), (stored, 4, 1_750_000_004, "5")] {
                let received = harness.broadcasts(to: channel.apnsID)
                #expect(received.count == 1)
                let request = try #require(received.first)
                #expect(request.method == "POST")
                #expect(request.path == "/4/broadcasts/apps/com.example.scores")
                #expect(request.header("apns-channel-id") == channel.apnsID)
                #expect(request.header("apns-push-type") == "liveactivity")
                #expect(request.header("apns-priority") == priority)
                #expect(request.header("apns-topic") == nil)
                #expect(request.header("authorization")?.hasPrefix("bearer ") == true)
                let body = DeliveryDatabase.payload(score: score, timestamp: Int64(timestamp))
                #expect(Array(request.body.utf8) == body)
                #expect(request.bodyBytes == body.count)
                #expect(request.status == 200)
                #expect(request.notes.isEmpty)

                let deliveries = try await harness.database.deliveries(channel.id)
                #expect(deliveries.count == 1)
                let delivery = try #require(deliveries.first)
                #expect(delivery.outcome == "sent")
                #expect(delivery.statusCode == 200)
                #expect(delivery.priority == Int(priority))
                #expect(delivery.requestID == request.responseHeader("apns-request-id"))
                #expect(delivery.uniqueID != nil)
                #expect(delivery.uniqueID == request.responseHeader("apns-unique-id"))
                #expect((delivery.latency ?? -1) >= 0)
                // The wait for a worker is part of ingest→send, and the send took its APNs round trip.
                let ingestToClaim = try #require(delivery.ingestToClaim)
                let ingestToSend = try #require(delivery.ingestToSend)
                #expect(ingestToClaim >= 0)
                #expect(ingestToSend - ingestToClaim >= (delivery.latency ?? .infinity) - 1)
                #expect(try await harness.database.channel(channel.id).lastTimestamp == Int64(timestamp))
            }
            #expect(harness.broadcasts(to: noStore.apnsID).first?.header("apns-expiration") == "0")
            let expiration = try #require(harness.broadcasts(to: stored.apnsID).first?.header("apns-expiration").flatMap { Int($0) })
            // Eight hours after the send, which happened between these two readings (whole seconds,
            // as the header has them): no margin for a loaded machine to overrun.
            #expect((startedAt + 8 * 3600)...(endedAt + 8 * 3600) ~= expiration)
            #expect(workers.statistics.sent == 2)
        }
    }

    @Test func aBacklogForOneChannelCoalescesAndTheLastStateWins() async throws {
        try await DeliveryHarness.with { harness in
            let channel = try await harness.createChannel()
            try harness.simulator.setFaults(SimulatorFaults(latencyMilliseconds: 150))
            let workers = harness.makePool(harness.settings(workers: 2))
            var enqueueing = Duration.zero
            try await harness.running(workers) {
                let start = ContinuousClock.now
                for score in 1...100 {
                    try await harness.enqueue(channelID: channel.id, score: score, timestamp: 1_750_000_000 + Int64(score))
                    try await Task.sleep(for: .milliseconds(5))
                }
                enqueueing = ContinuousClock.now - start
                try await eventually("the backlog drains") { try await harness.outboxCount() == 0 }
            }
            let received = harness.broadcasts(to: channel.apnsID)
            #expect(received.count >= 2)
            // Sends to one channel never overlap and each takes at least the simulator's 150 ms,
            // so while the updates were written at most one send began per 150 ms, and one more
            // carried the last state after. The bound follows the time the writing took (longer
            // on a loaded machine) instead of assuming it.
            let mostSends = Int(enqueueing / .milliseconds(150)) + 2
            #expect(received.count <= min(mostSends, 99), "100 updates written in \(enqueueing) took \(received.count) sends")
            #expect(received.allSatisfy { $0.status == 200 })
            #expect(Array(received.last?.body.utf8 ?? "".utf8) == DeliveryDatabase.payload(score: 100, timestamp: 1_750_000_100))
            // Never two sends to the channel at once: each answer came before the next request was made.
            let deliveries = try await harness.database.deliveries(channel.id)
            #expect(deliveries.count == received.count)
            #expect(deliveries.map(\.coalesced).reduce(0, +) + deliveries.count == 100)
            #expect(try await harness.database.channel(channel.id).lastTimestamp == 1_750_000_100)
            #expect(workers.statistics.superseded >= 1)
        }
    }

    @Test func aSpentBudgetDowngradesToPriorityFiveAndCountsIt() async throws {
        try await DeliveryHarness.with { harness in
            // 3 an hour, one of them kept for the final whistle (the default reserve).
            try await harness.pool.execute("UPDATE apps SET budget_per_hour = 3 WHERE id = \(harness.appID)")
            let channel = try await harness.createChannel()
            let workers = harness.makePool(harness.settings())
            try await harness.running(workers) {
                for score in 1...5 {
                    try await harness.enqueue(channelID: channel.id, score: score, timestamp: 1_750_000_000 + Int64(score))
                    try await eventually("update \(score) is sent") { harness.broadcasts(to: channel.apnsID).count == score }
                }
                try await eventually("the outbox drains") { try await harness.outboxCount() == 0 }
            }
            #expect(harness.broadcasts(to: channel.apnsID).map { $0.header("apns-priority") } == ["10", "10", "5", "5", "5"])
            let deliveries = try await harness.database.deliveries(channel.id)
            #expect(deliveries.map(\.downgraded) == [false, false, true, true, true])
            #expect(deliveries.allSatisfy { $0.requestedPriority == 10 })
            let ledger = try await harness.database.ledger(channel.id)
            #expect(ledger.map(\.kind) == ["priority10", "priority10"], "a downgraded send spends nothing; its delivery record counts it")
            #expect(workers.statistics.downgraded == 3)
        }
    }

    @Test func tooManyRequestsBacksOffShrinksTheBudgetThenSucceeds() async throws {
        try await DeliveryHarness.with(configure: {
            $0.budgetPerHour = 1
            $0.retryAfter = .seconds(1)
        }) { harness in
            let channel = try await harness.createChannel()
            // Time moves only when the test moves it (two days ahead, past every time the database
            // writes itself), so the retry falls inside the 1 s Retry-After however slow the machine is.
            let clock = ManualServiceClock(Date().addingTimeInterval(2 * 86_400))
            let workers = harness.makePool(harness.settings(standardBudget: 10), clock: clock)
            try await harness.running(workers) {
                try await harness.enqueue(channelID: channel.id, score: 1, timestamp: 1_750_000_001)
                try await eventually("the first update is sent") { try await harness.outboxCount() == 0 }
                try await harness.enqueue(channelID: channel.id, score: 2, timestamp: 1_750_000_002)
                try await eventually("the 429 is written back") { try await harness.database.deliveries(channel.id).count == 2 }
                // Past the retry's backoff (at most 0.2 s here), inside the 1 s Retry-After.
                clock.advance(by: .seconds(0.5))
                try await eventually("the second update is sent after a 429") { try await harness.outboxCount() == 0 }
            }
            let received = harness.broadcasts(to: channel.apnsID)
            #expect(received.map(\.status) == [200, 429, 200])
            #expect(received.map { $0.header("apns-priority") } == ["10", "10", "5"])
            #expect(received[1].reason == "TooManyRequests")
            #expect(received[1].responseHeader("retry-after") == "1")
            // Retry-After bars priority 10 only: the retry went at 5 after its own backoff.
            #expect(Array(received[2].body.utf8) == DeliveryDatabase.payload(score: 2, timestamp: 1_750_000_002))
            let deliveries = try await harness.database.deliveries(channel.id)
            #expect(deliveries.map(\.outcome) == ["sent", "retry", "sent"])
            #expect(deliveries.map(\.attempt) == [1, 1, 2])
            #expect(deliveries[2].downgraded)
            let ledger = try await harness.database.ledger(channel.id)
            // One entry each, all at the same instant (time stands still).
            #expect(ledger.map(\.kind).sorted() == ["priority10", "throttled"])
            let throttle = try #require(ledger.lazy.compactMap { entry -> ChannelBudget.Throttle? in
                if case .throttled(let throttle) = entry { return throttle }
                return nil
            }.first)
            #expect(throttle.limitAfter == 5)
            #expect(throttle.barredUntil == throttle.at.addingTimeInterval(1), "barred for the Retry-After")
        }
    }

    @Test func aServiceUnavailableStormIsRetriedAndNothingIsLost() async throws {
        try await DeliveryHarness.with { harness in
            var channels: [(id: Int64, apnsID: String)] = []
            for _ in 0..<20 { channels.append(try await harness.createChannel()) }
            try harness.simulator.setFaults(SimulatorFaults(failNext: 30, failStatus: 503))
            let workers = harness.makePool(harness.settings(workers: 2, batch: 8))
            try await harness.running(workers) {
                for (index, channel) in channels.enumerated() {
                    try await harness.enqueue(channelID: channel.id, score: index, timestamp: 1_750_000_000 + Int64(index), notify: false)
                }
                try await harness.pool.notify(channel: WorkerSettings.defaultNotifyChannel)
                try await eventually("every channel got its update") { try await harness.outboxCount() == 0 }
            }
            var failures = 0
            for (index, channel) in channels.enumerated() {
                let received = harness.broadcasts(to: channel.apnsID)
                #expect(received.last?.status == 200)
                #expect(Array(received.last?.body.utf8 ?? "".utf8) == DeliveryDatabase.payload(score: index, timestamp: 1_750_000_000 + Int64(index)))
                failures += received.filter { $0.status == 503 }.count
                let outcomes = try await harness.database.deliveries(channel.id).map(\.outcome)
                #expect(outcomes.last == "sent")
                // A row that drew many of the breaker's probes may have given up attempts (recorded
                // as failed); its state stayed pending all the same.
                #expect(outcomes.dropLast().allSatisfy { $0 == "retry" || $0 == "failed" })
            }
            #expect(failures == 30)
            #expect(workers.statistics.retried + workers.statistics.failed == 30)
            #expect(workers.statistics.sent == 20)
        }
    }

    @Test func resetStreamsAreRetriedAsTransportFailures() async throws {
        try await DeliveryHarness.with { harness in
            let channel = try await harness.createChannel()
            try harness.simulator.setFaults(SimulatorFaults(resetNext: 3))
            let workers = harness.makePool(harness.settings())
            try await harness.running(workers) {
                try await harness.enqueue(channelID: channel.id, score: 1, timestamp: 1_750_000_001)
                try await eventually("the update gets through") { try await harness.outboxCount() == 0 }
            }
            let deliveries = try await harness.database.deliveries(channel.id)
            #expect(deliveries.last?.outcome == "sent")
            #expect(deliveries.filter { $0.outcome == "retry" }.allSatisfy { $0.statusCode == nil && $0.reason != nil })
            #expect(harness.broadcasts(to: channel.apnsID).filter { $0.outcome == "reset" }.count == 3)
        }
    }

    @Test func channelNotRegisteredMarksTheChannelGoneAndStopsSending() async throws {
        try await DeliveryHarness.with { harness in
            let channel = try await harness.createChannel()
            let healthy = try await harness.createChannel()
            let credentials = try APNsCredentials(teamID: harness.teamID, keyID: harness.keyID, keyFile: harness.keyPath)
            let deleted = try await harness.client.deleteChannel(bundleID: harness.bundleID, channelID: channel.apnsID, credentials: credentials)
            #expect(deleted.status == 204)
            let workers = harness.makePool(harness.settings())
            try await harness.running(workers) {
                try await harness.enqueue(channelID: channel.id, score: 1, timestamp: 1_750_000_001)
                try await eventually("the channel is marked gone") { try await harness.database.channel(channel.id).status == "gone" }
                #expect(try await harness.database.outbox(channel.id) == nil)
                // Later events for it are never sent; other channels carry on.
                try await harness.enqueue(channelID: channel.id, score: 2, timestamp: 1_750_000_002)
                try await harness.enqueue(channelID: healthy.id, score: 2, timestamp: 1_750_000_002)
                try await eventually("the healthy channel is served") { harness.broadcasts(to: healthy.apnsID).count == 1 }
                try await Task.sleep(for: .milliseconds(300))
            }
            let received = harness.broadcasts(to: channel.apnsID)
            #expect(received.count == 1)
            #expect(received.first?.reason == "ChannelNotRegistered")
            let deliveries = try await harness.database.deliveries(channel.id)
            #expect(deliveries.map(\.outcome) == ["gone"])
            #expect(deliveries.first?.reason == "ChannelNotRegistered")
            #expect(workers.statistics.gone == 1)
            #expect(harness.logs.lines.contains { $0.contains("ChannelNotRegistered") })
        }
    }

    @Test func refusedCredentialsPauseTheAppLoudlyOnceAndKeepItsWork() async throws {
        try await DeliveryHarness.with { harness in
            // The simulator does not know this key (nor its id): APNs answers 403 InvalidProviderToken.
            let strangerPath = harness.folder.appendingPathComponent("stranger.p8").path
            try Data(try P256PrivateKey.generate().pkcs8PEM.utf8).write(to: URL(fileURLWithPath: strangerPath))
            var channels: [(id: Int64, apnsID: String)] = []
            for _ in 0..<3 { channels.append(try await harness.createChannel()) }
            try await harness.pool.execute("UPDATE apps SET key_path = \(strangerPath), key_id = 'KEYSTRANGE' WHERE id = \(harness.appID)")
            let workers = harness.makePool(harness.settings(workers: 3, batch: 1))
            try await harness.running(workers) {
                for channel in channels { try await harness.enqueue(channelID: channel.id, score: 1, timestamp: 1_750_000_001) }
                try await eventually("the app is paused") { try await harness.database.pause(harness.appID).at != nil }
                try await Task.sleep(for: .milliseconds(300))
            }
            let pause = try await harness.database.pause(harness.appID)
            #expect(pause.reason?.contains("InvalidProviderToken") == true)
            let sends = channels.map { harness.broadcasts(to: $0.apnsID).count }.reduce(0, +)
            #expect(sends >= 1 && sends <= 3)
            #expect(harness.simulator.receivedRequests().filter { $0.port == "send" }.allSatisfy { $0.reason == "InvalidProviderToken" })
            // Rows are kept for when an admin resumes the app.
            #expect(try await harness.outboxCount() == 3)
            let loud = harness.logs.lines.filter { $0.contains("PAUSED") }
            #expect(loud.count == 1)
            #expect(!loud.joined().contains("BEGIN"))

            // Fixed key, app resumed: the kept rows go out.
            try await harness.pool.execute("UPDATE apps SET key_path = \(harness.keyPath), key_id = \(harness.keyID), paused_at = NULL, paused_reason = NULL WHERE id = \(harness.appID)")
            try await harness.running(harness.makePool(harness.settings())) {
                try await eventually("the kept rows are sent") { try await harness.outboxCount() == 0 }
            }
            for channel in channels { #expect(harness.broadcasts(to: channel.apnsID).last?.status == 200) }
        }
    }

    @Test func anUnreadableKeyPausesTheAppWithoutSending() async throws {
        try await DeliveryHarness.with { harness in
            let channel = try await harness.createChannel()
            try await harness.pool.execute("UPDATE apps SET key_path = '/nonexistent/AuthKey.p8' WHERE id = \(harness.appID)")
            let workers = harness.makePool(harness.settings())
            try await harness.running(workers) {
                try await harness.enqueue(channelID: channel.id, score: 1, timestamp: 1_750_000_001)
                try await eventually("the app is paused") { try await harness.database.pause(harness.appID).at != nil }
            }
            #expect(harness.broadcasts(to: channel.apnsID).isEmpty)
            #expect(try await harness.database.pause(harness.appID).reason?.contains("/nonexistent/AuthKey.p8") == true)
            #expect(try await harness.database.deliveries(channel.id).map(\.outcome) == ["paused"])
            #expect(try await harness.outboxCount() == 1)
        }
    }

    @Test func aDeadWorkersRowsAreDeliveredOnceTheirLeaseExpires() async throws {
        try await DeliveryHarness.with { harness in
            var channels: [(id: Int64, apnsID: String)] = []
            for index in 0..<5 {
                let channel = try await harness.createChannel()
                try await harness.enqueue(channelID: channel.id, score: index, timestamp: 1_750_000_000 + Int64(index), notify: false)
                channels.append(channel)
            }
            // A worker process claimed them and was killed before completing: exactly the state
            // it leaves behind is rows leased to an owner nobody will ever hear from again.
            let store = OutboxStore(pool: harness.pool, logger: TestDatabase.logger)
            let claimedAt = Date()
            let claimed = try await store.claim(owner: "dead-host:4242:cafe/w0", limit: 10, lease: .seconds(1), at: claimedAt)
            #expect(claimed.count == 5)
            // The lease's end as the database set it (a reading taken here, after the claim
            // returned, was later by however long that took: a 0.1 s margin a loaded machine missed).
            let leaseEnds = try #require(try await harness.database.outbox(channels[0].id)?.leaseExpiresAt)

            let workers = harness.makePool(harness.settings(poll: .milliseconds(50)))
            try await harness.running(workers) {
                try await eventually("the rescued rows are sent") { try await harness.outboxCount() == 0 }
            }
            for (index, channel) in channels.enumerated() {
                let received = harness.broadcasts(to: channel.apnsID)
                #expect(received.count == 1)
                #expect(received.first.map { $0.time >= leaseEnds.timeIntervalSince1970 - 0.01 } == true, "sent before the lease ended")
                #expect(Array(received.first?.body.utf8 ?? "".utf8) == DeliveryDatabase.payload(score: index, timestamp: 1_750_000_000 + Int64(index)))
            }
        }
    }

    @Test func aWorkerKilledMidSendIsReplacedByAnotherAfterTheLease() async throws {
        try await DeliveryHarness.with { harness in
            let channel = try await harness.createChannel()
            try harness.simulator.setFaults(SimulatorFaults(blackHole: true))
            try await harness.enqueue(channelID: channel.id, score: 7, timestamp: 1_750_000_007, notify: false)
            // The first pool's send disappears into the black hole; the pool is then torn down
            // the hard way (its task cancelled, no grace): its lease stays behind.
            let doomed = harness.makePool(harness.settings(lease: .seconds(1), grace: .zero), ownerPrefix: "doomed")
            let running = Task { try await doomed.run(until: ShutdownSignal()) }
            try await eventually("the doomed send is in flight") { harness.broadcasts(to: channel.apnsID).count == 1 }
            running.cancel()
            _ = try? await running.value
            let held = try await harness.database.outbox(channel.id)
            #expect(held?.leaseOwner?.hasPrefix("doomed/") == true)

            try harness.simulator.setFaults(.none)
            let rescuer = harness.makePool(harness.settings(lease: .seconds(5)))
            try await harness.running(rescuer) {
                try await eventually("the rescuer delivers") { try await harness.outboxCount() == 0 }
            }
            let answered = harness.broadcasts(to: channel.apnsID).filter { $0.status == 200 }
            #expect(answered.count == 1)
            #expect(Array(answered.first?.body.utf8 ?? "".utf8) == DeliveryDatabase.payload(score: 7, timestamp: 1_750_000_007))
            #expect(try await harness.database.deliveries(channel.id).map(\.outcome) == ["sent"])
        }
    }

    @Test func gracefulShutdownLetsShortSendsFinish() async throws {
        try await DeliveryHarness.with { harness in
            let channel = try await harness.createChannel()
            try harness.simulator.setFaults(SimulatorFaults(latencyMilliseconds: 300))
            // A grace as long as the hang deadline: the 300 ms send must finish within it however
            // loaded the machine (the pool stops as soon as it has, so the test is no slower).
            let workers = harness.makePool(harness.settings(grace: hangDeadline))
            try await harness.running(workers) {
                try await harness.enqueue(channelID: channel.id, score: 1, timestamp: 1_750_000_001)
                try await eventually("the send is in flight") { harness.broadcasts(to: channel.apnsID).count == 1 }
            }
            // run() returned only after the send was answered and completed.
            #expect(try await harness.outboxCount() == 0)
            #expect(try await harness.database.deliveries(channel.id).map(\.outcome) == ["sent"])
        }
    }

    @Test func gracefulShutdownReleasesWhatItHolds() async throws {
        try await DeliveryHarness.with { harness in
            var channels: [(id: Int64, apnsID: String)] = []
            for index in 0..<4 {
                let channel = try await harness.createChannel()
                try await harness.enqueue(channelID: channel.id, score: index, timestamp: 1_750_000_000, notify: false)
                channels.append(channel)
            }
            // Until a send succeeds on a connection only one stream is allowed (apns.md §6):
            // warm the send connection up so that all four sends can be in flight at once.
            try await harness.warmUpSendConnection()
            try harness.simulator.setFaults(SimulatorFaults(blackHole: true))
            // An hour's lease: rows still leased could not be sent again within the hang deadline.
            let workers = harness.makePool(harness.settings(workers: 2, batch: 2, lease: .seconds(3_600), grace: .milliseconds(200)))
            try await harness.running(workers) {
                try await eventually("all four sends are in flight") {
                    channels.allSatisfy { harness.broadcasts(to: $0.apnsID).count == 1 }
                }
            }
            // Released at the grace, not after the black hole's request timeout: no attempt was
            // counted and nothing was recorded (a 5 s bound on the stop flaked on a loaded machine).
            for channel in channels {
                let row = try #require(try await harness.database.outbox(channel.id))
                #expect(row.leaseOwner == nil)
                #expect(row.leaseExpiresAt == nil)
                #expect(row.attempts == 0)
                #expect(try await harness.database.deliveries(channel.id).isEmpty)
            }
            #expect(workers.statistics.released == 4)
            // Released rows go at once to the next pool, without waiting for a lease.
            try harness.simulator.setFaults(.none)
            try await harness.running(harness.makePool(harness.settings())) {
                try await eventually("the released rows are sent") { try await harness.outboxCount() == 0 }
            }
        }
    }

    @Test func notifyWakesIdleWorkersLongBeforeThePollInterval() async throws {
        try await DeliveryHarness.with { harness in
            let channel = try await harness.createChannel()
            let settings = harness.ownNotifyChannel(harness.settings(poll: .seconds(3_600)))
            let workers = harness.makePool(settings)
            try await harness.running(workers) {
                // Wait for the listener to subscribe (an event, not a guessed 300 ms).
                try await eventually("the workers listen on \(settings.notifyChannel)") {
                    try await harness.listenerPIDs(on: settings.notifyChannel).count == 1
                }
                // Polling would take an hour: a send within the hang deadline can only have come
                // from the NOTIFY (no wall-clock bound: one of 2 s failed at load 25).
                try await harness.enqueue(channelID: channel.id, score: 1, timestamp: 1_750_000_001, notify: false)
                try await harness.pool.notify(channel: settings.notifyChannel)
                try await eventually("the notified row is sent") { try await harness.outboxCount() == 0 }
            }
        }
    }

    @Test func pollingFindsRowsWhenNoNotificationComes() async throws {
        try await DeliveryHarness.with { harness in
            let channel = try await harness.createChannel()
            let workers = harness.makePool(harness.settings(poll: .milliseconds(100)))
            try await harness.running(workers) {
                try await Task.sleep(for: .milliseconds(200))
                try await harness.enqueue(channelID: channel.id, score: 1, timestamp: 1_750_000_001, notify: false)
                try await eventually("the row is found by polling") { try await harness.outboxCount() == 0 }
            }
        }
    }
}
