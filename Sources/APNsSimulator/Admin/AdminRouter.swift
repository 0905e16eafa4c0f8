import Foundation
import HTTPServer
import JSON

/// The simulator's admin API: plain HTTP/1.1 JSON on the admin port, for tests, scripts and
/// people. Errors are `application/problem+json` (RFC 9457) naming the field at fault.
///
/// Inspection
/// - `GET /requests[?since=N][&limit=N]` → `{"total": n, "requests": [request…]}`: the latest
///   received requests (a bounded ring buffer), oldest first. Each request has `sequence`,
///   `time`, `port` (`send`/`management`), `connection`, `stream`, `method`, `path`, `headers`
///   (`[{name, value}]`, `authorization` shown as `bearer <redacted>`), `payload` (the body
///   decoded as JSON, or `null`), `body` (the raw text, only when it is not JSON), `bodyBytes`,
///   `outcome` (`answered`/`reset`/`ignored`), `status`, `reason`, `responseHeaders`,
///   `delayMilliseconds`, and `notes` (Live Activity payload observations).
/// - `GET /channels` → `{"channels": [{id, bundleID, messageStoragePolicy, createdAt}]}`.
/// - `GET /budgets` → `{"budgets": [{channelID, bundleID, messageStoragePolicy, budgetPerHour,
///   usedInWindow, remaining, freesAt, priorityTenSends, otherSends, throttled}]}`.
/// - `GET /stats` → `{"received": n, "answers": {"200": n, "400 BadExpirationDate": n, …}}`.
/// - `GET /settings` → `{channelLimit, budgetPerHour, noMessageStoredBudgetPerHour, retryAfter,
///   allowsPriorityOneBroadcasts, maxConcurrentStreams}`.
///
/// Control
/// - `GET /faults` → the active faults: `{failNext, failPercent, failStatus, goAwayAfterStreams,
///   resetNext, resetPercent, latencyMilliseconds, blackHole, holdAnswers, maxConcurrentStreams}`.
/// - `POST /faults` with any subset of those keys → merges them (`null` clears an optional
///   one) and answers the result; a new `maxConcurrentStreams` is advertised at once.
///   `holdAnswers: true` holds the answers to broadcasts until it is set back to `false` (which
///   releases them), the faults are cleared, `POST /held-answers/release`, or shutdown.
/// - `DELETE /faults` → clears every fault (`204`), releasing held answers.
/// - `GET /held-answers` → `{"held": n}`: broadcast answers held now.
/// - `POST /held-answers/release` → `{"released": n}`: answers the held broadcasts; the hold
///   stays on for later ones.
/// - `GET /teams` → `{"teams": [{teamID, keyID, publicKeyPEM, bundleIDs}]}`.
/// - `POST /teams` with `{teamID, keyID, publicKeyPEM, bundleIDs}` → registers (or replaces, by
///   key id) a team (`201`).
/// - `POST /channel-limit` with `{"limit": n}` → the per-app channel limit.
/// - `POST /budget` with any of `{"perHour": n|null, "noMessageStoredPerHour": n|null,
///   "retryAfter": "none"|"auto"|seconds}` → the hourly priority-10 budgets (`null`: unlimited,
///   or for `noMessageStoredPerHour` the same as `perHour`) and the `Retry-After` policy.
/// - `POST /device-tokens/unregistered` with `{"token": hex, "timestamp": ms?}` → pushes to that
///   token answer `410 Unregistered`.
/// - `GET /device-tokens` → `{"tokens": [{token, bundleID, accepted, starts, updates, ends,
///   lastEvent, lastStartInput, unregisteredAt}]}`: every token that received Live Activity
///   pushes or was marked unregistered.
/// - `POST /reset` → forgets channels, budgets, requests, unregistered tokens and faults (`204`);
///   teams and limits stay.
enum AdminRouter {
    /// The router serving `state`.
    static func make(state: SimulatorState) -> Router {
        var router = Router()

        router.get("/requests") { request in
            let since = try request.query("since", as: Int.self) ?? 0
            let limit = try request.query("limit", as: Int.self)
            if let limit, limit < 0 { throw Problem.badRequest("limit must be ≥ 0", errors: [.init(field: "limit", detail: "must be ≥ 0")]) }
            let requests = state.receivedRequests(since: since, limit: limit)
            return try .json(AdminRequestList(total: state.statistics().received, requests: requests.map(AdminRequest.init)))
        }
        router.get("/channels") { _ in try .json(["channels": state.channelList()]) }
        router.get("/budgets") { _ in try .json(["budgets": state.budgetUsage()]) }
        router.get("/stats") { _ in try .json(state.statistics()) }
        router.get("/settings") { _ in
            let settings = state.settings
            return try .json(AdminSettings(
                channelLimit: settings.channelLimit, budgetPerHour: settings.budgetPerHour,
                noMessageStoredBudgetPerHour: settings.noMessageStoredBudgetPerHour,
                retryAfter: settings.retryAfter.argument, allowsPriorityOneBroadcasts: settings.allowsPriorityOneBroadcasts,
                maxConcurrentStreams: Int(state.maxConcurrentStreams.load(ordering: .relaxed))))
        }

        router.get("/faults") { _ in try .json(state.faults) }
        router.post("/faults") { request in
            let patch = try AdminBody.object(request, allowed: AdminBody.faultKeys)
            let faults = try AdminBody.applyFaults(patch, to: state.faults)
            try AdminBody.control { () throws(SimulatorError) in try state.setFaults(faults) }
            return try .json(state.faults)
        }
        router.delete("/faults") { _ in
            try AdminBody.control { () throws(SimulatorError) in try state.setFaults(.none) }
            return .empty()
        }

        router.get("/held-answers") { _ in try .json(["held": state.heldAnswers.count] as [String: Int]) }
        router.post("/held-answers/release") { _ in
            let released = state.heldAnswers.releaseAll()
            return try .json(["released": released])
        }

        router.get("/teams") { _ in try .json(["teams": state.verifier.teams]) }
        router.post("/teams") { request in
            let team = try AdminBody.team(request)
            try AdminBody.control { () throws(SimulatorError) in try state.verifier.register(team) }
            return try .json(team, status: .created)
        }

        router.post("/channel-limit") { request in
            let body = try AdminBody.object(request, allowed: ["limit"])
            let limit = try AdminBody.integer(body, "limit", required: true) ?? 0
            try AdminBody.control { () throws(SimulatorError) in try state.setChannelLimit(limit) }
            return try .json(["limit": limit])
        }
        router.post("/budget") { request in
            let body = try AdminBody.object(request, allowed: ["perHour", "noMessageStoredPerHour", "retryAfter"])
            let current = state.settings
            let perHour = body["perHour"] == nil ? current.budgetPerHour : try AdminBody.integer(body, "perHour", required: false)
            let noStorage = body["noMessageStoredPerHour"] == nil
                ? current.noMessageStoredBudgetPerHour : try AdminBody.integer(body, "noMessageStoredPerHour", required: false)
            var retryAfter = current.retryAfter
            if let value = body["retryAfter"] {
                let text = value.stringValue ?? value.integerValue.map(String.init)
                guard let text, let policy = RetryAfterPolicy(argument: text) else {
                    throw Problem.unprocessable("retryAfter must be \"none\", \"auto\" or a number of seconds",
                                                errors: [.init(field: "retryAfter", detail: "must be \"none\", \"auto\" or seconds ≥ 0")])
                }
                retryAfter = policy
            }
            try AdminBody.control { () throws(SimulatorError) in
                try state.setBudget(perHour: perHour, noMessageStoredPerHour: noStorage)
                try state.setRetryAfter(retryAfter)
            }
            return try .json(AdminBudgetSettings(perHour: perHour, noMessageStoredPerHour: noStorage, retryAfter: retryAfter.argument))
        }
        router.post("/device-tokens/unregistered") { request in
            let body = try AdminBody.object(request, allowed: ["token", "timestamp"])
            guard let token = body["token"]?.stringValue else {
                throw Problem.unprocessable("token is required", errors: [.init(field: "token", detail: "must be a string of hex digits")])
            }
            let timestamp = try AdminBody.integer(body, "timestamp", required: false)
            try AdminBody.control { () throws(SimulatorError) in try state.unregisterDeviceToken(token, timestampMilliseconds: timestamp) }
            return .empty()
        }
        router.get("/device-tokens") { _ in try .json(["tokens": state.deviceTokenList()]) }
        router.post("/reset") { _ in
            state.reset()
            return .empty()
        }
        return router
    }
}
