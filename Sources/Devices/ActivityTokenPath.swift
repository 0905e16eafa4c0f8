import APNs
import APNsCore
import Clocks
import DeliveryEngine
import Foundation
import JSON
import LeasedQueue
import Postgres
import Registry
import ScorecastCore
import ScorecastLogging
import ServiceBase

/// Updates for activities that listen to their own push token (devices before iOS 18, or games
/// without a channel for the app): every game update is rendered once per app, exactly as for
/// its channels, and queued for each active token of the game — one pending row per token, a
/// newer update replacing an older one (coalescing) — then sent as device pushes with topic
/// `<bundle>.push-type.liveactivity`. The game's `final` arrives as `event: end` with its
/// dismissal date. A token APNs calls dead is pruned; a rotated token replaced it already.
/// Devices whose user turned frequent updates off get the light tier; every activity has its
/// own priority-10 budget (``ActivityBudget``): once it is spent, updates go at priority 5
/// (counted as downgraded), and its last sends are kept for the final whistle. Coalescing
/// (``ActivityUpdateMerge``) and what an answer leaves (``ActivityUpdateSettlement``) are
/// decided in Swift; the statements here only apply them, fenced on each row's version.
struct ActivityTokenPath: Sendable {
    let pool: PostgresPool
    let apns: APNsClientSet
    let credentials: CredentialStore
    let staleness: StalenessPolicy
    let batch: Int
    let budget: ActivityBudget
    let metrics: DeviceMetrics?
    let logger: Logger
    /// The time every due time, lease and rolling budget hour is reckoned on.
    let clock: any ServiceClock
    static let retry = RetryPolicy(baseDelay: 0.5, maximumDelay: 60, maximumAttempts: 8)

    /// Queues new game updates for tokens, then sends every due one.
    func round(owner: String, lease: Duration) async throws {
        try await queueUpdates(now: clock.now())
        while true {
            let claimed = try await claim(owner: owner, lease: lease, now: clock.now())
            if claimed.isEmpty { return }
            let outcomes = await send(claimed)
            try await complete(outcomes, owner: owner, now: clock.now())
            if claimed.count < batch { return }
        }
    }

    // MARK: - Sending

    /// One claimed token update.
    struct Claimed: Sendable {
        let tokenID: Int64
        let token: String
        let appID: Int64
        let version: Int64
        /// When the claimed version fell due.
        let dueAt: Date
        let attempts: Int
        let priority: Int
        let timestamp: Int64
        let payload: [UInt8]
        /// The device's frequent-updates setting (it sets the activity's budget).
        let frequentUpdates: Bool
        /// Priority-10 updates sent to the activity in the last hour.
        let spent: Int
        /// Whether it carries the final whistle (it may spend the budget's reserve).
        let final: Bool
        /// Whether an alerting update went into it.
        let alerting: Bool

        /// What was sent, as an update (`nil` if the stored payload does not read back).
        var update: ActivityUpdate? {
            guard let json = try? JSONParser().parse(payload), let payload = try? LiveActivityPayload(jsonValue: json),
                  let priority = BroadcastPriority(rawValue: priority) else { return nil }
            return ActivityUpdate(payload: payload, priority: priority, alerting: alerting, final: final, dueAt: dueAt)
        }
    }

    /// How a claimed update ended.
    struct Outcome: Sendable {
        let claimed: Claimed
        let verdict: DevicePushVerdict
        let retryAfter: Double?
        /// Whether it went at priority 10 (spending the activity's budget when delivered).
        var immediate = false
        /// Whether it wanted priority 10 and went at 5 because the budget was spent.
        var downgraded = false
        /// The app's bundle id, the label of the downgrade counter (empty when no send was made).
        var bundleID = ""

        /// The answer as the settlement reads it.
        var answer: ActivityUpdateSettlement.Answer {
            ActivityUpdateSettlement.Answer(
                claimedVersion: claimed.version, attempt: claimed.attempts, timestamp: claimed.timestamp, verdict: verdict,
                retryAfter: retryAfter, immediate: immediate, downgraded: downgraded)
        }
    }

    /// Leases the rows due at `now`, with each activity's priority-10 sends in the hour before:
    /// the queue's one claim (``LeasedQueue``), each claim counting an attempt.
    func claim(owner: String, lease: Duration, now: Date) async throws -> [Claimed] {
        let claim = Self.queue.claim(
            LeasedQueue.Pick(condition: "o.due_at <= \(now) AND \(Self.queue.isFree(at: now))", order: "o.due_at", limit: batch),
            owner: owner, lease: lease, at: now, setting: "attempts = o.attempts + 1",
            returning: """
                o.activity_token_id, o.version, o.due_at, o.attempts, o.priority, o.payload_timestamp, o.payload, o.final,
                o.alerting
                """)
        return try await pool.query("""
            WITH \(claim)
            SELECT c.*, t.token, d.app_id, d.frequent_updates,
                   (SELECT count(*) FROM activity_priority_sends s
                    WHERE s.activity_token_id = c.activity_token_id AND s.sent_at > \(now.addingTimeInterval(-ActivityBudget.window))) AS spent
            FROM claimed c
            JOIN activity_tokens t ON t.id = c.activity_token_id JOIN devices d ON d.id = t.device_id
            """).map { row in
            Claimed(
                tokenID: try row.decode("activity_token_id"), token: try row.decode("token"), appID: try row.decode("app_id"),
                version: try row.decode("version"), dueAt: try row.decode("due_at"), attempts: Int(try row.decode("attempts", as: Int32.self)),
                priority: Int(try row.decode("priority", as: Int16.self)), timestamp: try row.decode("payload_timestamp"),
                payload: [UInt8](try row.decode("payload", as: Data.self)), frequentUpdates: try row.decode("frequent_updates"),
                spent: Int(try row.decode("spent", as: Int64.self)), final: try row.decode("final"), alerting: try row.decode("alerting"))
        }
    }

    func send(_ claimed: [Claimed]) async -> [Outcome] {
        var contexts: [Int64: (AppRecord, APNsCredentials)?] = [:]
        for appID in Set(claimed.map(\.appID)) {
            if let app = try? await AppStore(pool: pool).find(id: appID), app.pausedReason == nil,
               let credentials = try? await credentials.credentials(for: app) {
                contexts[appID] = (app, credentials)
            } else {
                contexts[appID] = .some(nil)
            }
        }
        return await withTaskGroup(of: Outcome.self) { group in
            for item in claimed {
                guard let (app, credentials) = contexts[item.appID] ?? nil else {
                    group.addTask { Outcome(claimed: item, verdict: .retry(reason: "AppUnusable"), retryAfter: nil) }
                    continue
                }
                let immediate = budget.sendsImmediately(
                    priority: item.priority, spent: item.spent, budget: budget.perHour(app: app, deviceFrequentUpdates: item.frequentUpdates),
                    final: item.final)
                let downgraded = item.priority == 10 && !immediate
                let push = DevicePush(
                    token: item.token, topic: DevicePush.liveActivityTopic(bundleID: app.bundleID), pushType: .liveActivity,
                    priority: immediate ? .immediate : .opportunistic, payload: item.payload)
                group.addTask {
                    do {
                        let response = try await apns.client(for: credentials).sendToDevice(push, credentials: credentials)
                        return Outcome(claimed: item, verdict: DevicePushVerdict.classify(status: response.status, reason: response.reason),
                                       retryAfter: response.retryAfterSeconds.map(Double.init), immediate: immediate, downgraded: downgraded,
                                       bundleID: app.bundleID)
                    } catch {
                        // An update may safely be sent twice (the device drops an equal timestamp).
                        return Outcome(claimed: item, verdict: .retry(reason: "Transport"), retryAfter: nil)
                    }
                }
            }
            var outcomes: [Outcome] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
    }
}

extension ActivityTokenPath {
    /// The token path's pending updates, leased one row per activity token.
    static let queue = LeasedQueue.activityUpdates

    /// Attempts of a write before a deadlock or a concurrent change is reported.
    static let maximumWriteAttempts = 4

    /// Runs `body` again (up to ``maximumWriteAttempts`` in all) when it collided with another
    /// transaction (``ConflictRetry``); `work` names it in the log.
    func retryingConflicts<T>(_ work: String, _ body: () async throws -> T) async throws -> T {
        try await ConflictRetry(work: work, attempts: Self.maximumWriteAttempts, logger: logger).run(body)
    }
}
