import ScorecastLogging

/// What one APNs connection remembers between requests.
final class APNsConnection {
    let id: UInt64
    let authentication = ProviderAuthentication()
    /// Generates request and unique ids without a system call per request.
    var random = FastRandom()
    /// Whether a request with a valid provider token has been seen (APNs allows one stream until then).
    var authenticated = false

    init(id: UInt64) { self.id = id }
}

/// Answers the requests of one APNs port (send or channel management) as APNs does: faults
/// first, then path, method, provider token, topic, headers, channel and payload rules, budget.
/// Runs on the port's loop thread; shared state is reached through `SimulatorState`'s locks.
final class APNsRequestHandler: H2Handler {
    let port: APNsPort
    let state: SimulatorState
    let logger: Logger

    init(port: APNsPort, state: SimulatorState, logger: Logger) {
        self.port = port
        self.state = state
        self.logger = logger
    }

    func streamLimit(for connection: AnyObject) -> UInt32 {
        let connection = unsafeDowncast(connection, to: APNsConnection.self)
        if state.oneStreamUntilAuthenticated && !connection.authenticated { return 1 }
        return state.maxConcurrentStreams.load(ordering: .relaxed)
    }

    func makeConnectionState(connectionID: UInt64) -> AnyObject { APNsConnection(id: connectionID) }

    func shouldGoAway(afterStreams count: Int) -> Bool {
        let limit = state.goAwayAfterStreams.load(ordering: .relaxed)
        return limit > 0 && count >= limit
    }

    func handle(_ request: consuming H2Request, streamID: Int32, connection: AnyObject) -> H2Action {
        let request = request
        let connection = unsafeDowncast(connection, to: APNsConnection.self)
        let now = state.clock.now()
        let answer: APNsAnswer
        var latency = 0
        var held = false
        if state.faultsActive.load(ordering: .relaxed) {
            let (decision, latencyMilliseconds) = state.drawFault()
            latency = latencyMilliseconds
            if state.heldAnswers.isHolding, case .broadcast = APNsRoute.match(path: request.path, port: port) {
                held = true
                latency = 0
            }
            switch decision {
            case .blackHole:
                record(request, connection: connection, streamID: streamID, now: now, outcome: .ignored, responseHeaders: [], delay: 0)
                return .ignore
            case .reset:
                record(request, connection: connection, streamID: streamID, now: now, outcome: .reset, responseHeaders: [], delay: 0)
                return .reset(errorCode: 2) // INTERNAL_ERROR
            case .fail(let status):
                let reason: APNsReason = status == 500 ? .internalServerError : .serviceUnavailable
                let route = APNsRoute.match(path: request.path, port: port)
                answer = .failure(reason, id: APNsRequestID.resolve(request, route: route, random: &connection.random).header)
            case .none:
                answer = judge(request, connection: connection, now: now)
            }
        } else {
            answer = judge(request, connection: connection, now: now)
        }
        record(request, connection: connection, streamID: streamID, now: now,
               outcome: .answered(status: answer.status, reason: answer.reason?.rawValue),
               responseHeaders: answer.headers, delay: latency)
        if held { return .hold(answer.response, in: state.heldAnswers) }
        if latency > 0 { return .respondLater(answer.response, after: .milliseconds(latency)) }
        return .respond(answer.response)
    }

    /// The answer to a request when no fault intervenes.
    func judge(_ request: H2Request, connection: APNsConnection, now: Double) -> APNsAnswer {
        let route = APNsRoute.match(path: request.path, port: port)
        let requestID = APNsRequestID.resolve(request, route: route, random: &connection.random)
        let id = requestID.header
        guard let route else { return .failure(.badPath, id: id) }
        guard route.methods.contains(request.method) else { return .failure(.methodNotAllowed, id: id) }

        let identity: ProviderTokenVerifier.Identity
        switch connection.authentication.authenticate(
            header: request.authorization, verifier: state.verifier, policy: state.authPolicy, now: now) {
        case .success(let verified):
            identity = verified
            connection.authenticated = true
        case .failure(let reason): return .failure(reason, id: id)
        }

        switch route {
        case .broadcast(let bundleID):
            return broadcast(request, bundleID: bundleID, identity: identity, requestID: requestID, connection: connection, now: now)
        case .device(let token):
            return devicePush(request, token: token, identity: identity, requestID: requestID, connection: connection)
        case .channels(let bundleID):
            guard identity.bundleIDs.contains(bundleID) else { return .failure(.topicMismatch, id: id) }
            guard requestID.isValid else { return .failure(.badMessageId, id: id) }
            return channels(request, bundleID: bundleID, id: id, now: now)
        case .allChannels(let bundleID):
            guard identity.bundleIDs.contains(bundleID) else { return .failure(.topicMismatch, id: id) }
            guard requestID.isValid else { return .failure(.badMessageId, id: id) }
            let ids = state.core.withLock { $0.channels.ids(bundleID: bundleID) }
            return .success(status: 200, headers: [id], body: ChannelRules.listBody(ids))
        }
    }

    private func broadcast(
        _ request: H2Request, bundleID: String, identity: ProviderTokenVerifier.Identity, requestID: APNsRequestID,
        connection: APNsConnection, now: Double
    ) -> APNsAnswer {
        let id = requestID.header
        if bundleID.hasSuffix(BroadcastRules.liveActivitySuffix) { return .failure(.topicDisallowed, id: id) }
        guard identity.bundleIDs.contains(bundleID) else { return .failure(.topicMismatch, id: id) }
        guard requestID.isValid else { return .failure(.badMessageId, id: id) }
        // The payload check needs no lock; its verdict is reported after the channel checks.
        let payloadProblem = BroadcastRules.checkPayload(request.body, length: request.bodyLength)
        return state.core.withLock { core -> APNsAnswer in
            let headers: BroadcastRules.Headers
            switch BroadcastRules.headers(of: request, allowsPriorityOne: core.settings.allowsPriorityOneBroadcasts) {
            case .success(let parsed): headers = parsed
            case .failure(let reason): return .failure(reason, id: id)
            }
            guard let channel = core.channels.channel(id: headers.channelID, bundleID: bundleID) else {
                return .failure(.channelNotRegistered, id: id)
            }
            if let reason = BroadcastRules.checkExpiration(headers.expiration, policy: channel.policy, now: now) {
                return .failure(reason, id: id)
            }
            if let payloadProblem { return .failure(payloadProblem, id: id) }
            let budget = core.settings.budget(for: channel.policy)
            switch core.budgets.admit(channelID: channel.id, priority: headers.priority, budget: budget, now: now) {
            case .allowed:
                return .success(status: 200, headers: [id, ("apns-unique-id", Identifiers.uuid(using: &connection.random))])
            case .throttled(let freesAt):
                let retryAfter: Int? = switch core.settings.retryAfter {
                case .none: nil
                case .seconds(let seconds): seconds
                case .untilBudgetFrees: max(1, Int((freesAt - now).rounded(.up)))
                }
                return .failure(.tooManyRequests, id: id, retryAfter: retryAfter)
            }
        }
    }

    private func channels(_ request: H2Request, bundleID: String, id: (name: String, value: String), now: Double) -> APNsAnswer {
        switch request.method {
        case "POST":
            let policy: MessageStoragePolicy
            switch ChannelRules.createBody(request.body, length: request.bodyLength) {
            case .success(let parsed): policy = parsed
            case .failure(let reason): return .failure(reason, id: id)
            }
            let answer = state.core.withLock { core -> APNsAnswer in
                var channelID = Identifiers.channelID()
                while core.channels.channel(id: channelID, bundleID: bundleID) != nil { channelID = Identifiers.channelID() }
                switch core.channels.create(id: channelID, bundleID: bundleID, policy: policy, limit: core.settings.channelLimit, now: now) {
                case .success(let record):
                    return .success(status: 201, headers: [id, ("apns-channel-id", record.id)])
                case .failure(.limitReached):
                    return .failure(.cannotCreateChannelConfig, id: id)
                }
            }
            persistChannels()
            return answer
        case "GET":
            switch ChannelRules.channelID(of: request) {
            case .failure(let reason): return .failure(reason, id: id)
            case .success(let channelID):
                guard let record = state.core.withLock({ $0.channels.channel(id: channelID, bundleID: bundleID) }) else {
                    return .failure(.channelNotRegistered, id: id)
                }
                return .success(status: 200, headers: [id], body: ChannelRules.readBody(record))
            }
        default: // DELETE (the route admits no other method)
            switch ChannelRules.channelID(of: request) {
            case .failure(let reason): return .failure(reason, id: id)
            case .success(let channelID):
                let deleted = state.core.withLock { core -> Bool in
                    guard core.channels.delete(id: channelID, bundleID: bundleID) else { return false }
                    core.budgets.forget(channelID: channelID)
                    return true
                }
                if deleted { persistChannels() }
                return deleted ? .success(status: 204, headers: [id]) : .failure(.channelNotRegistered, id: id)
            }
        }
    }

    /// Saves the channel set (when the state is kept across restarts).
    private func persistChannels() {
        if let error = state.persist() { logger.error("could not save the simulator's channels", ["error": "\(error)"]) }
    }

    private func devicePush(
        _ request: H2Request, token: String, identity: ProviderTokenVerifier.Identity, requestID: APNsRequestID,
        connection: APNsConnection
    ) -> APNsAnswer {
        let id = requestID.header
        if let reason = DevicePushRules.checkToken(token) { return .failure(reason, id: id) }
        let headers: DevicePushRules.Headers
        switch DevicePushRules.headers(of: request) {
        case .success(let parsed): headers = parsed
        case .failure(let reason): return .failure(reason, id: id)
        }
        guard identity.bundleIDs.contains(headers.bundleID) else { return .failure(.topicMismatch, id: id) }
        guard requestID.isValid else { return .failure(.badMessageId, id: id) }
        if let reason = BroadcastRules.checkPayload(request.body, length: request.bodyLength, limit: DevicePushRules.payloadLimit) {
            return .failure(reason, id: id)
        }
        let key = token.lowercased()
        let push = headers.pushType == "liveactivity" ? DeviceTokenLedger.Push(body: request.body) : nil
        let unregisteredSince = state.core.withLock { core -> Int? in
            if let since = core.unregisteredTokens[key] { return since }
            if let push { core.deviceTokens.record(token: key, bundleID: headers.bundleID, push: push) }
            return nil
        }
        if let since = unregisteredSince { return .unregistered(id: id, timestampMilliseconds: since) }
        return .success(status: 200, headers: [id, ("apns-unique-id", Identifiers.uuid(using: &connection.random))])
    }

    /// Logs the request (its header list already has the provider token redacted).
    private func record(
        _ request: H2Request, connection: APNsConnection, streamID: Int32, now: Double,
        outcome: RequestRecord.Outcome, responseHeaders: [(name: String, value: String)], delay: Int
    ) {
        let headers = request.headers
        let body = request.body
        state.log.withLock { log in
            log.append(RequestRecord(
                sequence: log.nextSequence, time: now, port: port, connectionID: connection.id, streamID: streamID,
                method: request.method, path: request.path, headers: headers, body: body,
                bodyLength: request.bodyLength, outcome: outcome, responseHeaders: responseHeaders, delayMilliseconds: delay))
        }
    }
}

/// The request id of one request: the client's when it is a lowercase UUID, else a new one.
struct APNsRequestID {
    /// `apns-request-id` (broadcasts, channel management) or `apns-id` (device pushes).
    let header: (name: String, value: String)
    /// `false` when the client sent an id that is not a lowercase canonical UUID (`BadMessageId`).
    let isValid: Bool

    static func resolve(_ request: H2Request, route: APNsRoute?, random: inout FastRandom) -> APNsRequestID {
        let name: String
        if case .device = route { name = "apns-id" } else { name = "apns-request-id" }
        guard let supplied = request.header(name) else {
            return APNsRequestID(header: (name, Identifiers.uuid(using: &random)), isValid: true)
        }
        if Identifiers.isLowercaseUUID(supplied) { return APNsRequestID(header: (name, supplied), isValid: true) }
        return APNsRequestID(header: (name, Identifiers.uuid(using: &random)), isValid: false)
    }
}
