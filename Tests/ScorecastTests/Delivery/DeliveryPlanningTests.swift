import APNs
import APNsCore
import Delivery
import DeliveryEngine
import Foundation
import ScorecastCore
import Testing

/// The pure decisions of a send: its plan (priority, budget, expiration) and what follows its
/// outcome, table-driven with a fixed clock and random source.
@Suite struct DeliveryPlanningTests {
    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    static func claim(
        priority: BroadcastPriority = .immediate, policy: ChannelStoragePolicy = .noMessageStored, attempts: Int = 0,
        frequent: Bool = false, appBudget: Int? = nil, budget: ChannelBudget = ChannelBudget()
    ) -> ClaimedDelivery {
        ClaimedDelivery(
            channelID: 7, version: 3, payload: Array("{}".utf8), payloadTimestamp: 1_749_999_990, requestedPriority: priority,
            alerting: priority == .immediate, eventIDs: [11, 12], firstIngestedAt: now.addingTimeInterval(-0.25), coalesced: 1,
            attempts: attempts, leaseOwner: "w", claimedAt: now.addingTimeInterval(-0.01), apnsChannelID: "abc=", storagePolicy: policy, lastTimestamp: 0,
            app: DeliveryApp(
                id: 2, bundleID: "com.example.app", environment: .sandbox, teamID: "TEAM000001", keyID: "KEY0000001",
                keyPath: "/k.p8", frequentUpdates: frequent, budgetPerHour: appBudget),
            budget: budget)
    }

    static func response(_ status: Int, _ reason: APNsReason? = nil, retryAfter: String? = nil) -> SendOutcome {
        .answered(APNsResponse(
            status: status, reason: reason, requestID: "r-1", uniqueID: status == 200 ? "u-1" : nil, channelID: nil,
            retryAfter: retryAfter, timestamp: nil, latency: .milliseconds(4), body: []))
    }

    /// No final reserve here: the plans below are about the budget itself (the reserve has its own test).
    static let settings = WorkerSettings(
        budgetProfiles: BudgetProfiles(standardPerHour: 3, frequentPerHour: 9), budgetPolicy: BudgetPolicy(finalReserve: 0),
        retryPolicy: RetryPolicy(baseDelay: 1, maximumDelay: 8, maximumAttempts: 4))

    /// Full jitter pinned to its top.
    struct Highest: RandomNumberGenerator {
        mutating func next() -> UInt64 { .max }
    }

    // MARK: - Plans

    @Test(arguments: [
        // (requested, app budget, frequent, already sent this hour) → (priority, downgraded)
        (BroadcastPriority.immediate, Int?.none, false, 0, BroadcastPriority.immediate, false),
        (.immediate, nil, false, 2, .immediate, false),
        (.immediate, nil, false, 3, .opportunistic, true),
        (.immediate, nil, true, 3, .immediate, false),
        (.immediate, nil, true, 9, .opportunistic, true),
        (.immediate, 1, true, 1, .opportunistic, true),
        (.immediate, 0, false, 0, .opportunistic, true),
        (.opportunistic, nil, false, 3, .opportunistic, false),
        (.opportunistic, nil, false, 0, .opportunistic, false),
    ])
    func priorityFollowsTheBudget(
        requested: BroadcastPriority, appBudget: Int?, frequent: Bool, sent: Int, expected: BroadcastPriority, downgraded: Bool
    ) {
        let budget = ChannelBudget(immediateSends: Array(repeating: Self.now.addingTimeInterval(-60), count: sent))
        let plan = PlannedSend(claim: Self.claim(priority: requested, frequent: frequent, appBudget: appBudget, budget: budget), now: Self.now, settings: Self.settings)
        #expect(plan.priority == expected)
        #expect(plan.downgraded == downgraded)
    }

    @Test func sendsOlderThanTheHourCountForNothing() {
        let old = ChannelBudget(immediateSends: Array(repeating: Self.now.addingTimeInterval(-3600), count: 99))
        let plan = PlannedSend(claim: Self.claim(budget: old), now: Self.now, settings: Self.settings)
        #expect(plan.priority == .immediate)
        #expect(!plan.downgraded)
    }

    /// The ledger's sends of the last hour count whatever clock hour they fell in; the final
    /// whistle alone may spend the reserve.
    @Test func theRollingHourAndTheFinalReserveDecideThePriority() {
        let hour = Self.now.flooringToHour
        var claim = Self.claim(budget: ChannelBudget(immediateSends: [-3000, -2000, -1000].map { hour.addingTimeInterval($0) }))
        let plan = PlannedSend(claim: claim, now: hour.addingTimeInterval(1), settings: Self.settings)
        #expect(plan.priority == .opportunistic)
        #expect(plan.downgraded)
        #expect(PlannedSend(claim: claim, now: hour.addingTimeInterval(601), settings: Self.settings).priority == .immediate)

        let reserving = WorkerSettings(budgetProfiles: BudgetProfiles(standardPerHour: 3), budgetPolicy: BudgetPolicy(finalReserve: 1))
        claim.budget = ChannelBudget(immediateSends: [hour.addingTimeInterval(-3000), hour.addingTimeInterval(-2000)])
        #expect(PlannedSend(claim: claim, now: hour.addingTimeInterval(1), settings: reserving).priority == .opportunistic)
        claim.headAlertIsFinal = true
        #expect(PlannedSend(claim: claim, now: hour.addingTimeInterval(1), settings: reserving).priority == .immediate)
    }

    @Test func aShrunkBudgetAfterA429StaysShrunkAcrossTheHour() {
        let throttledAt = Self.now.flooringToHour.addingTimeInterval(-60)
        let throttle = ChannelBudget.Throttle(at: throttledAt, limitAfter: 1, barredUntil: throttledAt)
        var claim = Self.claim(budget: ChannelBudget(lastThrottle: throttle))
        let first = PlannedSend(claim: claim, now: Self.now, settings: Self.settings)
        #expect(first.priority == .immediate)
        #expect(first.budget.limit(now: Self.now, policy: first.budgetPolicy) == 1)
        claim.budget = ChannelBudget(immediateSends: [Self.now.addingTimeInterval(-1)], lastThrottle: throttle)
        #expect(PlannedSend(claim: claim, now: Self.now, settings: Self.settings).downgraded)
    }

    @Test func expirationIsZeroWithoutStorageAndEightHoursAtMostWithIt() {
        #expect(PlannedSend(claim: Self.claim(policy: .noMessageStored), now: Self.now, settings: Self.settings).expiration == 0)
        #expect(PlannedSend(claim: Self.claim(policy: .mostRecentMessageStored), now: Self.now, settings: Self.settings).expiration
            == Int(Self.now.timeIntervalSince1970) + 8 * 3600)
        var shorter = Self.settings
        shorter.storedMessageLifetime = .seconds(600)
        #expect(PlannedSend(claim: Self.claim(policy: .mostRecentMessageStored), now: Self.now, settings: shorter).expiration
            == Int(Self.now.timeIntervalSince1970) + 600)
        var longer = Self.settings
        longer.storedMessageLifetime = .seconds(24 * 3600)
        #expect(PlannedSend(claim: Self.claim(policy: .mostRecentMessageStored), now: Self.now, settings: longer).expiration
            == Int(Self.now.timeIntervalSince1970) + 8 * 3600)
    }

    // MARK: - Outcomes

    private static func complete(_ outcome: SendOutcome, claim: ClaimedDelivery = claim(), plannedAt: Date? = nil) -> DeliveryCompletion {
        var random = Highest()
        let plan = PlannedSend(claim: claim, now: now, settings: settings)
        return CompletionPlanner.completion(
            for: claim, plan: plan, outcome: outcome, now: now, plannedAt: plannedAt, policy: settings.retryPolicy, random: &random)
    }

    /// The claim's wait is the part of ingest→send before the worker planned the send: ingested
    /// 250 ms before the answer, planned 40 ms before it, so 210 ms waiting and 40 sending.
    @Test func theRecordSplitsIngestToSendAtThePlan() throws {
        let record = try #require(Self.complete(Self.response(200), plannedAt: Self.now.addingTimeInterval(-0.04)).delivery)
        #expect(record.ingestToSendMilliseconds == 250)
        #expect(abs((record.ingestToClaimMilliseconds ?? -1) - 210) < 0.001)  // Date keeps ~0.2 µs at this epoch
        // Without a plan time nothing is claimed about the wait.
        #expect(try #require(Self.complete(Self.response(200)).delivery).ingestToClaimMilliseconds == nil)
    }

    @Test func acceptedFinishesCountsTheBudgetAndRecordsEverything() throws {
        let completion = Self.complete(Self.response(200))
        #expect(completion.action == .finish)
        #expect(completion.sentTimestamp == 1_749_999_990)
        #expect(completion.alert == nil)
        let record = try #require(completion.delivery)
        #expect(record.outcome == .sent)
        #expect(record.statusCode == 200)
        #expect(record.reason == nil)
        #expect(record.apnsRequestID == "r-1")
        #expect(record.apnsUniqueID == "u-1")
        #expect(record.apnsLatencyMilliseconds == 4)
        #expect(record.ingestToSendMilliseconds == 250)
        #expect(record.eventIDs == [11, 12])
        #expect(record.outboxVersion == 3)
        #expect(record.coalesced == 1)
        #expect(record.attempt == 1)
        #expect(record.priority == .immediate)
        #expect(completion.budgetEntry == .priority10(at: Self.now))
    }

    @Test func aRoutineSendCountsNothingAndWritesNoLedgerEntry() throws {
        let budget = ChannelBudget(immediateSends: [Self.now.addingTimeInterval(-60)])
        let routine = Self.complete(Self.response(200), claim: Self.claim(priority: .opportunistic, budget: budget))
        #expect(routine.delivery?.outcome == .sent)
        #expect(routine.budgetEntry == nil, "a priority-5 send spends nothing")
        let alerting = Self.complete(Self.response(200), claim: Self.claim(priority: .immediate, budget: budget))
        #expect(alerting.budgetEntry == .priority10(at: Self.now))
    }

    @Test func anAcceptedDowngradeIsCounted() throws {
        let spent = ChannelBudget(immediateSends: Array(repeating: Self.now.addingTimeInterval(-60), count: 3))
        let completion = Self.complete(Self.response(200), claim: Self.claim(budget: spent))
        #expect(completion.delivery?.priority == .opportunistic)
        #expect(completion.delivery?.requestedPriority == .immediate)
        #expect(completion.delivery?.downgraded == true)
        #expect(completion.budgetEntry == nil, "a downgraded send spends nothing")
    }

    @Test(arguments: [
        (503, APNsReason.serviceUnavailable, "503 ServiceUnavailable"),
        (500, .internalServerError, "500 InternalServerError"),
        (503, .shutdown, "503 Shutdown"),
        (502, nil, "HTTP 502"),
    ])
    func serverErrorsAreRetriedWithBackoff(status: Int, reason: APNsReason?, label: String) throws {
        let completion = Self.complete(Self.response(status, reason), claim: Self.claim(attempts: 1))
        guard case .retry(let delay, let error) = completion.action else {
            Issue.record("expected a retry, got \(completion.action)")
            return
        }
        // Attempt 2 failed: the bound is base × 2 = 2 s, and the jitter is pinned to its top.
        #expect(abs(delay - 2) < 0.001)
        #expect(error == label)
        #expect(completion.delivery?.outcome == .retry)
        #expect(completion.delivery?.attempt == 2)
        #expect(completion.budgetEntry == nil)
        #expect(completion.sentTimestamp == nil)
    }

    @Test func throttlingRetriesAfterTheBackoffBarsPriorityTenForTheRetryAfterAndShrinksTheBudget() throws {
        let completion = Self.complete(Self.response(429, .tooManyRequests, retryAfter: "30"))
        guard case .retry(let delay, _) = completion.action else {
            Issue.record("expected a retry, got \(completion.action)")
            return
        }
        // Attempt 1's bound is the base (1 s), jitter pinned to its top: the throttled goal goes
        // again then, at priority 5, not a routine interval later.
        #expect(delay == 1, "a throttled alert goes again after its backoff, at priority 5")
        #expect(delay < Double(Self.settings.routineInterval.components.seconds))
        let entry = ChannelBudget.Entry.throttled(ChannelBudget.Throttle(at: Self.now, limitAfter: 1, barredUntil: Self.now.addingTimeInterval(30)))
        #expect(completion.budgetEntry == entry)
        #expect(completion.delivery?.outcome == .retry)
        #expect(completion.delivery?.reason == "TooManyRequests")
        // The retry goes at 5: Retry-After bars priority 10 though the shrunk budget has room.
        let retried = Self.claim(attempts: 1, budget: ChannelBudget().appending(entry))
        let retry = PlannedSend(claim: retried, now: Self.now.addingTimeInterval(delay), settings: Self.settings)
        #expect(retry.priority == .opportunistic && retry.downgraded)
        let barred = PlannedSend(claim: retried, now: Self.now.addingTimeInterval(29), settings: Self.settings)
        #expect(barred.priority == .opportunistic && barred.downgraded)
        #expect(barred.budget.limit(now: Self.now.addingTimeInterval(29), policy: barred.budgetPolicy) == 1)
        // From the Retry-After on, priority 10 goes again, within the shrunk budget: not at the clock hour's end.
        let after = PlannedSend(claim: retried, now: Self.now.addingTimeInterval(30), settings: Self.settings)
        #expect(after.priority == .immediate && !after.downgraded)
    }

    @Test func transportFailuresAreRetried() throws {
        for (error, reason) in [
            (APNsClientError(.timeout, "deadline"), "timeout"),
            (APNsClientError(.connectionLost, "reset", neverProcessed: true), "GOAWAY before the request was processed"),
            (APNsClientError(.connectionLost, "reset"), "connection reset"),
            (APNsClientError(.connectionFailed, "refused"), "connection failed"),
        ] {
            let completion = Self.complete(.failed(error))
            guard case .retry = completion.action else {
                Issue.record("expected a retry for \(error), got \(completion.action)")
                continue
            }
            #expect(completion.delivery?.reason == reason)
            #expect(completion.delivery?.statusCode == nil)
        }
    }

    @Test func retriesRunOutIntoALoudFailedAttemptButTheStateStaysPending() throws {
        let completion = Self.complete(Self.response(503, .serviceUnavailable), claim: Self.claim(attempts: 3))
        guard case .retry(let delay, _) = completion.action else {
            Issue.record("the row must stay pending, got \(completion.action)")
            return
        }
        #expect(delay > 0 && delay <= Self.settings.retryPolicy.maximumDelay)
        #expect(completion.alert?.contains("stays pending") == true)
        #expect(completion.delivery?.outcome == .failed)
        #expect(completion.delivery?.reason == "ServiceUnavailable")
        #expect(completion.alert?.contains("gave up after 4 attempts") == true)
    }

    @Test(arguments: [APNsReason.badPriority, .badExpirationDate, .topicDisallowed, .payloadTooLarge, .badChannelId])
    func ourBugsFailWithoutRetryOrAlert(reason: APNsReason) {
        let completion = Self.complete(Self.response(reason.documentedStatus ?? 400, reason))
        #expect(completion.action == .finish)
        #expect(completion.delivery?.outcome == .failed)
        #expect(completion.delivery?.reason == reason.rawValue)
        #expect(completion.alert == nil)
        #expect(completion.budgetEntry == nil)
    }

    @Test func configurationErrorsAreLoudAndKeepTheStatePending() {
        let completion = Self.complete(Self.response(400, .featureNotEnabled))
        guard case .retry(let delay, _) = completion.action else {
            Issue.record("an operator can fix the app's configuration: the state must wait, got \(completion.action)")
            return
        }
        #expect(delay == Self.settings.retryPolicy.maximumDelay)
        #expect(completion.delivery?.outcome == .failed)
        #expect(completion.alert != nil)
    }

    @Test func channelNotRegisteredCancelsTheChannel() {
        let completion = Self.complete(Self.response(400, .channelNotRegistered))
        #expect(completion.action == .cancelChannel)
        #expect(completion.delivery?.outcome == .gone)
        #expect(completion.delivery?.reason == "ChannelNotRegistered")
        #expect(completion.alert != nil)
    }

    @Test(arguments: [APNsReason.invalidProviderToken, .expiredProviderToken, .missingProviderToken, .topicMismatch, .badCertificate])
    func credentialErrorsPauseTheApp(reason: APNsReason) {
        let completion = Self.complete(Self.response(403, reason))
        guard case .pauseApp(let text) = completion.action else {
            Issue.record("expected a pause, got \(completion.action)")
            return
        }
        #expect(text.contains(reason.rawValue))
        #expect(completion.delivery?.outcome == .paused)
        #expect(completion.delivery?.statusCode == 403)
    }

    @Test func unloadableCredentialsPauseTheAppWithoutSending() {
        let completion = Self.complete(.credentialsUnavailable("cannot load the APNs auth key: no such file"))
        guard case .pauseApp(let text) = completion.action else {
            Issue.record("expected a pause, got \(completion.action)")
            return
        }
        #expect(text.contains("no such file"))
        #expect(completion.delivery?.outcome == .paused)
        #expect(completion.delivery?.statusCode == nil)
    }

    @Test func aRefusalBeforeSendingFailsForGood() {
        let completion = Self.complete(.failed(APNsClientError(.invalidRequest, "the payload is 6000 bytes, over 5120")))
        #expect(completion.action == .finish)
        #expect(completion.delivery?.outcome == .failed)
        #expect(completion.delivery?.reason?.contains("6000 bytes") == true)
    }

    @Test func aMisconfiguredClientKeepsTheRowAndAlerts() {
        let completion = Self.complete(.failed(APNsClientError(.invalidConfiguration, "endpoint host \"\" is not a host name")))
        guard case .retry(let delay, _) = completion.action else {
            Issue.record("expected a retry, got \(completion.action)")
            return
        }
        #expect(abs(delay - 1) < 0.001)
        #expect(completion.delivery?.outcome == .retry)
        #expect(completion.alert?.contains("misconfigured") == true)
    }

    @Test(arguments: [APNsClientError.Code.cancelled, .shutdown])
    func cancellationOnlyReleasesTheRow(code: APNsClientError.Code) {
        let completion = Self.complete(.failed(APNsClientError(code, "stopping")))
        #expect(completion.action == .release)
        #expect(completion.delivery == nil)
        #expect(completion.budgetEntry == nil)
    }
}

extension Date {
    /// The start of the clock hour containing this time (UTC).
    fileprivate var flooringToHour: Date {
        Date(timeIntervalSince1970: (timeIntervalSince1970 / 3600).rounded(.down) * 3600)
    }
}
