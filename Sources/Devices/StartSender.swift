import APNs
import DeliveryEngine
import Foundation
import Registry
import ScorecastLogging
import Postgres
import ScorecastCore

/// Sends one claimed batch of push-to-starts: composes each game's payload once per app and
/// input (channel, light channel, own token), sends the starts through the APNs client's
/// device-push API in paced batches of ``batchSize`` (several in flight at once), and says how
/// each ended.
struct StartSender: Sendable {
    let pool: PostgresPool
    let apns: APNsClientSet
    let credentials: CredentialStore
    let staleness: StalenessPolicy
    let pacer: SendPacer
    let metrics: DeviceMetrics?
    let logger: Logger
    static let retry = RetryPolicy(baseDelay: 1, maximumDelay: 60, maximumAttempts: 6)

    /// What one app needs for its starts, loaded once per batch.
    struct AppContext: Sendable {
        let app: AppRecord
        let credentials: APNsCredentials
        let composer: PushToStartComposer
    }

    /// Sends `claimed` and returns one completion per start.
    func send(_ claimed: [KickoffStore.ClaimedStart], now: Date) async -> [KickoffStore.Completion] {
        var apps: [Int64: Result<AppContext, DeviceSendError>] = [:]
        var games: [String: GameRecord] = [:]
        var channels: [String: GameChannels] = [:] // "<app>/<game>"
        var payloads: [String: Result<[UInt8], DeviceSendError>] = [:] // "<app>/<game>/<input>"
        var plans: [(KickoffStore.ClaimedStart, Result<(DevicePush, AppContext, String), DeviceSendError>)] = []

        for start in claimed {
            if apps[start.appID] == nil { apps[start.appID] = await loadApp(start.appID) }
            if games[start.gameID] == nil, let game = try? await GameStore(pool: pool).find(id: start.gameID) { games[start.gameID] = game }
            guard case .success(let context) = apps[start.appID]! else {
                if case .failure(let error) = apps[start.appID]! { plans.append((start, .failure(error))) }
                continue
            }
            guard let game = games[start.gameID] else {
                plans.append((start, .failure(.terminal("GameMissing"))))
                continue
            }
            let channelKey = "\(start.appID)/\(start.gameID)"
            if channels[channelKey] == nil {
                channels[channelKey] = (try? await GameChannels.read(gameIDs: [start.gameID], appID: start.appID, pool: pool))?[start.gameID] ?? GameChannels()
            }
            let gameChannels = channels[channelKey]!
            let input = ActivityInput.choose(
                supportsChannels: start.supportsChannels, frequentUpdates: start.frequentUpdates,
                standardChannel: gameChannels.standard, lightChannel: gameChannels.light)
            let payloadKey = channelKey + "/" + input.name
            if payloads[payloadKey] == nil {
                payloads[payloadKey] = Result { () throws(DeviceSendError) -> [UInt8] in
                    do {
                        let payload = try context.composer.compose(
                            game: GameInfo(sport: game.sport, homeName: game.homeTeam, awayName: game.awayTeam), state: game.state,
                            attributes: try StartAttributes.encode(game, dateEncoding: context.app.dateEncoding), input: input, now: now)
                        return try payload.encode(for: .device)
                    } catch {
                        throw .terminal("PayloadInvalid")
                    }
                }
            }
            switch payloads[payloadKey]! {
            case .failure(let error):
                plans.append((start, .failure(error)))
            case .success(let body):
                let push = DevicePush(
                    token: start.token, topic: DevicePush.liveActivityTopic(bundleID: context.app.bundleID),
                    pushType: .liveActivity, priority: .immediate, payload: body)
                plans.append((start, .success((push, context, input.name))))
            }
        }

        return await withTaskGroup(of: [KickoffStore.Completion].self) { group in
            var sendable: [Int64: [Planned]] = [:]
            var order: [Int64] = []
            for (start, plan) in plans {
                switch plan {
                case .failure(let error):
                    group.addTask { [Self.completion(start, input: "", verdict: error.verdict, response: nil)] }
                case .success(let (push, context, inputName)):
                    if sendable[context.app.id] == nil { order.append(context.app.id) }
                    sendable[context.app.id, default: []].append(Planned(start: start, push: push, context: context, input: inputName))
                }
            }
            // Each app's starts go in batches, each paced start by start and handed to the client
            // at once: one hand-over to the client's thread per batch instead of one per start.
            for appID in order {
                let planned = sendable[appID] ?? []
                for first in stride(from: 0, to: planned.count, by: Self.batchSize) {
                    let batch = Array(planned[first..<min(first + Self.batchSize, planned.count)])
                    for _ in batch { await pacer.wait() }
                    group.addTask { await send(batch) }
                }
            }
            var completions: [KickoffStore.Completion] = []
            for await batch in group {
                for completion in batch {
                    completions.append(completion)
                    record(completion)
                }
            }
            return completions
        }
    }

    /// Starts sent to APNs together (one app's credentials): large enough that the hand-over to
    /// the client's thread is paid rarely, small enough that several are in flight at once and
    /// none waits long for its slowest answer (part 1's batched client uses the same size).
    static let batchSize = 25

    /// A start ready to send.
    private struct Planned: Sendable {
        let start: KickoffStore.ClaimedStart
        let push: DevicePush
        let context: AppContext
        let input: String
    }

    /// Sends one app's batch and says how each start ended.
    private func send(_ batch: [Planned]) async -> [KickoffStore.Completion] {
        let credentials = batch[0].context.credentials
        let client: APNsClient
        do {
            client = try apns.client(for: credentials)
        } catch {
            return batch.map { Self.completion($0.start, input: $0.input, verdict: DeviceSendError.transport(error).verdict, response: nil) }
        }
        let results = await client.sendToDevices(batch.map(\.push), credentials: credentials)
        return zip(batch, results).map { planned, result in
            switch result {
            case .success(let response):
                Self.completion(planned.start, input: planned.input,
                                verdict: DevicePushVerdict.classify(status: response.status, reason: response.reason), response: response)
            case .failure(let error):
                Self.completion(planned.start, input: planned.input, verdict: DeviceSendError.transport(error).verdict, response: nil)
            }
        }
    }

    /// How a start ends, from APNs' verdict (``DevicePushAnswer``): started, retried later (only
    /// when APNs cannot have acted on it), or failed; a dead token is also pruned. Pure but for
    /// the retry's jitter.
    static func completion(
        _ start: KickoffStore.ClaimedStart, input: String, verdict: DevicePushVerdict, response: APNsResponse?
    ) -> KickoffStore.Completion {
        var random = SystemRandomNumberGenerator()
        let answer = DevicePushAnswer.settle(
            verdict, attempt: start.attempts, retryAfter: response?.retryAfterSeconds.map(Double.init), retry: retry, using: &random)
        let status: KickoffStore.Completion.Status = switch answer.outcome {
        case .sent: .started
        case .retried: .pending
        case .failed: .failed
        }
        return KickoffStore.Completion(
            deviceID: start.deviceID, gameID: start.gameID, status: status, input: input,
            statusCode: response?.status ?? 0, reason: answer.reason, apnsID: response?.requestID ?? "",
            retryAfter: answer.retryDelay ?? 0, pruneReason: answer.prunedReason, token: start.token)
    }

    private func record(_ completion: KickoffStore.Completion) {
        guard let metrics else { return }
        let outcome = switch completion.status {
        case .started: "started"
        case .pending: "retried"
        case .failed: "failed"
        }
        metrics.starts.increment(.init(outcome: outcome, reason: completion.reason))
        if let reason = completion.pruneReason { metrics.pruned.increment(.init(kind: "push-to-start", reason: reason)) }
    }

    private func loadApp(_ appID: Int64) async -> Result<AppContext, DeviceSendError> {
        do {
            guard let app = try await AppStore(pool: pool).find(id: appID) else { return .failure(.terminal("AppMissing")) }
            if app.pausedReason != nil { return .failure(.retryLater("AppPaused")) }
            let credentials = try await credentials.credentials(for: app)
            let settings = try app.renderSettings(staleness: staleness)
            return .success(AppContext(app: app, credentials: credentials,
                                       composer: PushToStartComposer(settings: settings, attributesType: StartAttributes.typeName)))
        } catch {
            logger.warning("cannot send push-to-starts for an app", ["app": String(appID), "error": "\(error)"])
            return .failure(.retryLater("AppUnusable"))
        }
    }
}

/// Why a device push was not (or not surely) made, before or without an APNs answer.
enum DeviceSendError: Error, Sendable, Hashable {
    /// Never worth sending (the game or app is gone, the payload cannot be built).
    case terminal(String)
    /// Not sent; may work later (credentials unreadable, app paused).
    case retryLater(String)
    /// The client's error: retried only when the request surely never reached APNs.
    case transportNeverProcessed(String)
    /// The request may have reached APNs: not repeated (a start must not be sent twice).
    case transportUncertain(String)

    static func transport(_ error: any Error) -> DeviceSendError {
        guard let error = error as? APNsClientError else { return .transportUncertain("ClientError") }
        let name = "Transport" + error.code.rawValue.prefix(1).uppercased() + error.code.rawValue.dropFirst()
        return error.neverProcessed ? .transportNeverProcessed(name) : .transportUncertain(name)
    }

    /// The verdict it amounts to.
    var verdict: DevicePushVerdict {
        switch self {
        case .terminal(let reason), .transportUncertain(let reason): .fail(reason: reason)
        case .retryLater(let reason), .transportNeverProcessed(let reason): .retry(reason: reason)
        }
    }
}
